import type { Writable } from 'node:stream';
import type { SupervisorEvent } from '../supervisor/index.js';

/**
 * The run's events as NDJSON on stderr, for when stderr is not a terminal: one object per line,
 * each stamped with the run id, the node and its path.
 */
export function createEventLog(
  out: Writable,
  runId: string,
  pathOf: (nodeId: string) => string | undefined,
) {
  return (event: SupervisorEvent): void => {
    const ts = new Date().toISOString();
    let line: Record<string, unknown>;
    switch (event.type) {
      case 'node':
        line = {
          ts,
          run_id: runId,
          node_id: event.node.id,
          path: event.node.path,
          event: 'node.status',
          status: event.node.status,
        };
        break;
      case 'event':
        line = {
          ts,
          run_id: runId,
          node_id: event.nodeId,
          path: pathOf(event.nodeId),
          event: event.kind,
          ...event.fields,
        };
        break;
      case 'turn':
        line = {
          ts,
          run_id: runId,
          node_id: event.nodeId,
          path: pathOf(event.nodeId),
          event: 'turn.outcome',
          status: event.outcome.status,
        };
        break;
      case 'usage':
        line = {
          ts,
          run_id: runId,
          node_id: event.nodeId,
          path: pathOf(event.nodeId),
          event: 'usage',
          ...event.usage,
        };
        break;
    }
    out.write(`${JSON.stringify(line)}\n`);
  };
}
