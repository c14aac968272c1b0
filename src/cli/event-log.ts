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
    out.write(`${JSON.stringify(toWireEvent(eventOf(event, runId, pathOf)))}\n`);
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
