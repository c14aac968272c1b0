import type { RecordEvent } from '../event-sink.js';
import type { LiveNode } from './live-node.js';

/**
 * Stops nodes through their kill ladders, in the order given (deepest first, so no child outlives
 * its parent), each recorded as `node.cancel`; resolves once every one has ended.
 */
export async function stopNodes(
  targets: readonly LiveNode[],
  reason: string,
  options: { force: boolean; status?: 'cancelled' | 'deadline' },
  record: RecordEvent,
): Promise<void> {
  for (const target of targets) {
    record(target.node.id, { type: 'node.cancel', reason });
    target.stopped.abort(reason);
  }
  await Promise.all(
    targets.map((target) => target.runner?.stop(reason, options) ?? Promise.resolve(undefined)),
  );
  await Promise.all(targets.map((target) => target.ended()));
}
