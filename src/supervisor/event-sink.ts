import type { SecretScrubber } from '../protocol/index.js';
import type { RunStore } from '../store/store-port.js';
import type { SupervisorEvent } from './supervisor-options.js';

/** Records an event of the run, on a node or (no id) the run itself. */
export type RecordEvent = (
  nodeId: string | undefined,
  kind: string,
  fields: Record<string, unknown>,
) => void;

/**
 * The one way a run's events go out: scrubbed of secrets once, here, then written to the store and
 * told to observers (the CLI's views, the API stream, traces, `arbor serve`'s tasks). Every event a
 * node reports and every event the supervisor makes passes through it.
 */
export function eventSink(options: {
  runId: string;
  store: RunStore;
  scrub: SecretScrubber;
  now: () => number;
  onEvent?: (event: SupervisorEvent) => void;
}): RecordEvent {
  const { runId, store, scrub, now, onEvent } = options;
  return (nodeId, kind, fields) => {
    const data = scrub.deep(fields);
    store.appendEvent({
      runId,
      ...(nodeId === undefined ? {} : { nodeId }),
      ts: now(),
      kind,
      data,
    });
    if (nodeId !== undefined) onEvent?.({ type: 'event', nodeId, kind, fields: data });
  };
}
