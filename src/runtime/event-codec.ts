import { usageToMetadata, type RunEvent } from '../protocol/index.js';
import type { SupervisorEvent } from '../supervisor/index.js';

/**
 * The API's event for what the supervisor reported. A recorded event comes typed and placed
 * already; a status change, a usage report and a turn's outcome are made into events here.
 */
export function eventOf(
  event: SupervisorEvent,
  runId: string,
  pathOf: (nodeId: string) => string | undefined,
  now: Date = new Date(),
): RunEvent {
  const ts = now.toISOString();
  switch (event.type) {
    case 'event':
      return event.event;
    case 'node':
      return {
        type: 'node.status',
        ts,
        runId,
        nodeId: event.node.id,
        path: event.node.path,
        status: event.node.status,
      };
    case 'usage':
      return {
        type: 'usage',
        ts,
        runId,
        nodeId: event.nodeId,
        ...withPath(pathOf(event.nodeId)),
        // The totals, the cache and reasoning splits where reported, the cost where known.
        ...usageToMetadata(event.usage),
      };
    case 'turn':
      return {
        type: 'turn.outcome',
        ts,
        runId,
        nodeId: event.nodeId,
        ...withPath(pathOf(event.nodeId)),
        status: event.outcome.status,
      };
  }
}

function withPath(path: string | undefined): { path?: string } {
  return path === undefined ? {} : { path };
}
