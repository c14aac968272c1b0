import type { Writable } from 'node:stream';
import { eventOf, toWireEvent } from '../runtime/index.js';
import type { SupervisorEvent, Tree } from '../supervisor/index.js';

/**
 * The run's events as NDJSON on stderr, for when stderr is not a terminal: one object per line,
 * each stamped with the run id, the node and its path — the wire form of the API's events.
 */
function createEventLog(
  out: Writable,
  runId: string,
  pathOf: (nodeId: string) => string | undefined,
) {
  return (event: SupervisorEvent): void => {
    const known = eventOf(event, runId, pathOf);
    // A kind the union does not know yet is still written, as it came.
    const line =
      known !== undefined
        ? toWireEvent(known)
        : event.type === 'event'
          ? {
              ts: new Date().toISOString(),
              run_id: runId,
              node_id: event.nodeId,
              path: pathOf(event.nodeId),
              event: event.kind,
              ...event.fields,
            }
          : undefined;
    if (line !== undefined) out.write(`${JSON.stringify(line)}\n`);
  };
}

/** A run's `onEvent` for `--events ndjson`: each event placed in the tree it comes with. */
export function ndjsonEvents(
  out: Writable,
  runId: string,
): (event: SupervisorEvent, tree: Tree) => void {
  let log: ((event: SupervisorEvent) => void) | undefined;
  return (event, tree) => {
    log ??= createEventLog(out, runId, (id) => tree.get(id)?.path);
    log(event);
  };
}
