import {
  toStoredEvent,
  type RunEvent,
  type RunEventBody,
  type SecretScrubber,
} from '../protocol/index.js';
import type { RunStore } from '../store/store-port.js';
import type { SupervisorEvent } from './supervisor-options.js';

/** Records an event of the run, on a node or (no id) the run itself. */
export type RecordEvent = (nodeId: string | undefined, event: RunEventBody) => void;

/** The run's one way out for events (see `eventSink`). */
export interface EventSink {
  /** Scrubbed, written to the store, and (a node's) told to observers. */
  record: RecordEvent;
  /** Told to observers only, as it is: a streamed `text.delta`, already scrubbed as it streamed. */
  stream(nodeId: string, event: RunEventBody): void;
}

/**
 * The one way a run's events go out: scrubbed of secrets once, here, then written to the store and
 * told to observers (the CLI's views, the API stream, traces, `arbor serve`'s tasks), placed (its
 * time, run, node and path) once for all of them. Every event a node reports and every event the
 * supervisor makes passes through it, typed. (The few run-level records a runtime writes before a
 * supervisor exists, or beside it — `sandbox.*`, `run.resumed`, `plan.run_log` — are typed too,
 * and stored through the same `toStoredEvent`.)
 */
export function eventSink(options: {
  runId: string;
  store: RunStore;
  scrub: SecretScrubber;
  now: () => number;
  /** A node's path in the tree. */
  pathOf: (nodeId: string) => string | undefined;
  onEvent?: (event: SupervisorEvent) => void;
}): EventSink {
  const { runId, store, scrub, now, pathOf, onEvent } = options;
  // Events come by the thousand per second: one ISO time is made per millisecond, not per event.
  let lastMs = Number.NaN;
  let lastIso = '';
  const tell = (nodeId: string, event: RunEventBody, ts: number): void => {
    if (onEvent === undefined) return;
    if (ts !== lastMs) {
      lastMs = ts;
      lastIso = new Date(ts).toISOString();
    }
    // Assigned, not spread after the event's fields: V8 copies `{ ...a, b }` slowly.
    const placed: Record<string, unknown> = Object.assign({}, event);
    placed.ts = lastIso;
    placed.runId = runId;
    placed.nodeId = nodeId;
    const path = pathOf(nodeId);
    if (path !== undefined) placed.path = path;
    onEvent({ type: 'event', nodeId, event: placed as RunEvent });
  };
  return {
    record: (nodeId, event) => {
      const scrubbed = scrub.deep(event);
      const ts = now();
      store.appendEvent({
        runId,
        ...(nodeId === undefined ? {} : { nodeId }),
        ts,
        ...toStoredEvent(scrubbed),
      });
      if (nodeId !== undefined) tell(nodeId, scrubbed, ts);
    },
    stream: (nodeId, event) => {
      tell(nodeId, event, now());
    },
  };
}
