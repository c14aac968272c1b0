import type { RunStore } from '../src/supervisor/index.js';
import { median } from './stats.js';

/**
 * Where one arbor delegation's time goes, read back from the run's own record (event timestamps,
 * in whole milliseconds, taken by the supervisor as each record arrives):
 * - `ask`: the root's `tool.call` → the child's `node.spawned` (the request up to the
 *   supervisor, the chokepoint, minting the node);
 * - `start`: `node.spawned` → `child.ready` (a process or an in-memory child started and loaded);
 * - `first call`: `child.ready` → the child's `model.call` (budget check, loop start, the call);
 * - `end`: the child's `model.call` → its `node.end` (result, then the child's exit);
 * - `back`: `node.end` → the root's `tool.result` (the answer down to the root).
 */
export const PHASES = ['ask', 'start', 'first call', 'end', 'back'] as const;
export type Phase = (typeof PHASES)[number];

/** Median of each phase over every delegation of the given runs, in milliseconds. */
export function delegationPhases(
  store: RunStore,
  runIds: readonly string[],
): Record<Phase, number> {
  const samples: Record<Phase, number[]> = {
    ask: [],
    start: [],
    'first call': [],
    end: [],
    back: [],
  };
  for (const runId of runIds) {
    const events = store.listEvents(runId);
    const rootId = events.find((e) => e.kind === 'node.spawned' && e.data.mode === 'root')?.nodeId;
    const at = (nodeId: string | undefined, kind: string): number[] =>
      events.filter((e) => e.nodeId === nodeId && e.kind === kind).map((e) => e.ts);
    const asks = at(rootId, 'tool.call');
    const backs = at(rootId, 'tool.result');
    const children = events.filter((e) => e.kind === 'node.spawned' && e.nodeId !== rootId);
    children.forEach((spawned, k) => {
      const id = spawned.nodeId;
      const [ready] = at(id, 'child.ready');
      const [call] = at(id, 'model.call');
      const [end] = at(id, 'node.end');
      const [ask] = asks.slice(k, k + 1);
      const [back] = backs.slice(k, k + 1);
      if ([ready, call, end, ask, back].some((t) => t === undefined))
        throw new Error(`run ${runId}: child ${id} is missing a lifecycle event`);
      samples.ask.push(spawned.ts - ask!);
      samples.start.push(ready! - spawned.ts);
      samples['first call'].push(call! - ready!);
      samples.end.push(end! - call!);
      samples.back.push(back! - end!);
    });
  }
  return Object.fromEntries(PHASES.map((p) => [p, median(samples[p])])) as Record<Phase, number>;
}
