import type { RunEventBodyOf, RunEventType } from './run-events.js';

/**
 * The events a child reports in its `event` frames (its loop, its tools and its guard); every other
 * type is the supervisor's to record. The transcript travels in `event` frames too, apart.
 */
export const CHILD_EVENT_TYPES = [
  'loop.step',
  'loop.stop',
  'loop.paused',
  'loop.resumed',
  'loop.resumed_step',
  'model.call',
  'model.tools',
  'model.system',
  'replay.divergence',
  'model.error',
  'text.delta',
  'text.reset',
  'tool.call',
  'tool.result',
  'trajectory',
  'content.flagged',
  'trifecta.held',
  'trifecta.answer',
  'intel.swapped',
  'intel.swap_rejected',
  'turn.restarted',
  'a2a.task',
  'a2a.status',
] as const satisfies readonly RunEventType[];
export type ChildEventType = (typeof CHILD_EVENT_TYPES)[number];

/** An event a child reported, checked against its schema. */
export type ChildEvent = RunEventBodyOf<ChildEventType>;
