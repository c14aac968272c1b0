import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PlanSchema, runSchedule, type LeafOutcome, type Subtask } from '../../src/plan/index.js';

/** A random DAG: each leaf may depend on earlier ones; each is parallel or not, and passes or fails. */
const dagArb = fc.integer({ min: 1, max: 14 }).chain((n) =>
  fc.record({
    leaves: fc.tuple(
      ...Array.from({ length: n }, (_, i) =>
        fc.record({
          deps: fc.subarray(Array.from({ length: i }, (_, j) => j)),
          parallel: fc.boolean(),
          fails: fc.boolean(),
          /** Turns of the event loop the leaf takes to end. */
          ticks: fc.integer({ min: 0, max: 3 }),
        }),
      ),
    ),
    concurrency: fc.integer({ min: 1, max: 4 }),
    onFailure: fc.constantFrom('stop' as const, 'continue' as const),
  }),
);

const yieldTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('runSchedule over random DAGs', () => {
  it('starts a leaf only after its deps are done, within the concurrency, never after a failure it depends on', async () => {
    await fc.assert(
      fc.asyncProperty(dagArb, async ({ leaves, concurrency, onFailure }) => {
        const plan = PlanSchema.parse({
          subtask: leaves.map((leaf, i) => ({
            id: `t${i}`,
            instruction: `task ${i}`,
            deps: leaf.deps.map((d) => `t${d}`),
            parallel_ok: leaf.parallel,
          })),
        });
        const status = new Map<string, string>();
        const running = new Set<string>();
        const started: string[] = [];
        let failedSeen = false;
        // A throw inside dispatch would only fail the leaf: collect what went wrong instead.
        const violations: string[] = [];
        const check = (ok: boolean, what: string): void => {
          if (!ok) violations.push(what);
        };
        const dispatch = async (leaf: Subtask): Promise<LeafOutcome> => {
          const i = Number(leaf.id.slice(1));
          const spec = leaves[i]!;
          for (const dep of leaf.deps)
            check(status.get(dep) === 'done', `${leaf.id} started before ${dep} was done`);
          if (onFailure === 'stop') check(!failedSeen, `${leaf.id} started after a failure`);
          running.add(leaf.id);
          started.push(leaf.id);
          check(running.size <= concurrency, `${running.size} running over ${concurrency}`);
          for (const other of running) {
            const both = leaf.parallel_ok && plan.subtask[Number(other.slice(1))]!.parallel_ok;
            check(other === leaf.id || both, `${leaf.id} started beside ${other}`);
          }
          for (let t = 0; t < spec.ticks; t++) await yieldTurn();
          running.delete(leaf.id);
          const outcome = spec.fails ? 'failed' : 'done';
          status.set(leaf.id, outcome);
          return { status: outcome };
        };
        const summary = await runSchedule(plan, {
          concurrency,
          onFailure,
          dispatch,
          // The scheduler knows of a failure once it has recorded it.
          onTransition: (changed) => {
            if (changed.some((s) => s.status === 'failed')) failedSeen = true;
          },
        });
        expect(violations).toEqual([]);

        const byId = new Map(plan.subtask.map((s) => [s.id, s]));
        for (const subtask of plan.subtask) {
          expect(['done', 'failed', 'blocked', 'cancelled']).toContain(subtask.status);
          const deps = subtask.deps.map((d) => byId.get(d)!);
          if (deps.some((d) => d.status === 'failed' || d.status === 'blocked')) {
            expect(subtask.status).toBe('blocked');
            expect(started).not.toContain(subtask.id);
          }
          if (subtask.status === 'cancelled') expect(onFailure).toBe('stop');
          if (onFailure === 'continue' && deps.every((d) => d.status === 'done'))
            expect(started).toContain(subtask.id);
        }
        expect(new Set(started).size).toBe(started.length);
        const total = Object.values(summary).reduce((a, b) => a + b, 0);
        expect(total).toBe(plan.subtask.length);
      }),
      { numRuns: 300 },
    );
  });
});
