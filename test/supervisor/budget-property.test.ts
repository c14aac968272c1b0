import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../src/store/index.js';
import { Budget, subtreeUsage, Tree, type Grant } from '../../src/supervisor/index.js';
import { tempDb } from '../helpers/arbor-process.js';

/**
 * A model of a running tree: agents spawn children (carved from what their caller has left) and
 * make model calls — asking admission, holding a call in flight, then streaming its actual usage —
 * in any interleaving fast-check picks. Actual usage may be far above the estimate.
 */
type Event =
  | { kind: 'spawn'; parent: number; tokens: number | undefined; usd: number | undefined }
  | { kind: 'step'; node: number; estimate: number; actual: number };

const event: fc.Arbitrary<Event> = fc.oneof(
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('spawn' as const),
      parent: fc.nat(),
      tokens: fc.option(fc.integer({ min: 1, max: 3_000 }), { nil: undefined }),
      usd: fc.option(
        fc.integer({ min: 1, max: 3_000 }).map((n) => n / 1024),
        { nil: undefined },
      ),
    }),
  },
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('step' as const),
      node: fc.nat(),
      estimate: fc.integer({ min: 1, max: 300 }),
      actual: fc.integer({ min: 1, max: 600 }),
    }),
  },
);

const scenario = fc.record({
  ceilingTokens: fc.option(fc.integer({ min: 100, max: 5_000 }), { nil: undefined }),
  ceilingUsd: fc.option(
    fc.integer({ min: 100, max: 5_000 }).map((n) => n / 1024),
    { nil: undefined },
  ),
  events: fc.array(event, { minLength: 1, maxLength: 250 }),
});

const AXES = ['tokens', 'usd'] as const;
type Axis = (typeof AXES)[number];

interface Call {
  node: string;
  tokens: number;
  usd: number;
}

/** One grant's watch: its limit, and once reached, what was in flight under it at that moment. */
interface Watch {
  node: string;
  axis: Axis;
  limit: number;
  reachedWith: number | undefined;
}

const store = new SqliteStore(tempDb());
afterAll(() => {
  store.close();
});

type Scenario = typeof scenario extends fc.Arbitrary<infer T> ? T : never;

function simulate(input: Scenario) {
  const ceiling: Grant = {
    ...(input.ceilingTokens === undefined ? {} : { tokens: input.ceilingTokens }),
    ...(input.ceilingUsd === undefined ? {} : { usd: input.ceilingUsd }),
  };
  const budget = new Budget({ ceiling, onExcess: 'clamp', windows: [] }, store);
  const tree = new Tree();
  const root = tree.mintRoot('root', 0);
  budget.openRoot(root.id);
  const ids = [root.id];
  const inFlight = new Map<string, Call>();
  const watches: Watch[] = [];
  const watch = (node: string, grant: Grant): void => {
    for (const axis of AXES) {
      const limit = grant[axis];
      if (limit !== undefined) watches.push({ node, axis, limit, reachedWith: undefined });
    }
  };
  watch(root.id, ceiling);
  const under = (ancestor: string, node: string): boolean =>
    tree.deepestFirst(ancestor).some((n) => n.id === node);

  const finish = (call: Call): void => {
    const before = watches.map((w) => budget.ledger.subtree(w.node)[w.axis]);
    budget.record(
      call.node,
      { input_tokens: call.tokens, output_tokens: 0, cost_usd: call.usd },
      0,
    );
    const node = tree.get(call.node)!;
    node.usage = {
      input_tokens: node.usage.input_tokens + call.tokens,
      output_tokens: 0,
      cost_usd: (node.usage.cost_usd ?? 0) + call.usd,
    };
    watches.forEach((w, i) => {
      const after = budget.ledger.subtree(w.node)[w.axis];
      if (w.reachedWith !== undefined || before[i]! >= w.limit || after < w.limit) return;
      // The moment this grant was reached: this call and every other in flight under it.
      const flying = [call, ...inFlight.values()].filter((c) => under(w.node, c.node));
      w.reachedWith = flying.reduce((sum, c) => sum + c[w.axis], 0);
    });
  };

  for (const e of input.events) {
    if (e.kind === 'spawn') {
      const parent = ids[e.parent % ids.length]!;
      const left = budget.ledger.remaining(parent);
      const share = budget.share(
        { id: parent, path: parent, steps: 0, maxSteps: 1_000, deadlineAt: undefined },
        {
          ...(e.tokens === undefined ? {} : { tokens: e.tokens }),
          ...(e.usd === undefined ? {} : { usd: e.usd }),
        },
        0,
      );
      if (!share.ok) {
        // Refused only when the caller has nothing left on some axis.
        expect(AXES.some((axis) => left[axis] !== undefined && left[axis] <= 0)).toBe(true);
        continue;
      }
      // A child never holds more than its caller had left.
      for (const axis of AXES) {
        if (left[axis] !== undefined) expect(share.grant[axis]).toBeLessThanOrEqual(left[axis]);
      }
      const child = tree.mintChild(parent, 'child', 0);
      budget.open(child.id, parent, share.grant);
      watch(child.id, share.grant);
      ids.push(child.id);
      continue;
    }
    const node = ids[e.node % ids.length]!;
    const flying = inFlight.get(node);
    if (flying !== undefined) {
      inFlight.delete(node);
      finish(flying);
    } else if (budget.admit(node, e.estimate, 0).ok) {
      inFlight.set(node, { node, tokens: e.actual, usd: e.actual / 1024 });
    }
  }
  // Every call still in flight completes.
  for (const call of [...inFlight.values()]) {
    inFlight.delete(call.node);
    finish(call);
  }
  return { budget, tree, ids, watches };
}

describe('the budget ledger under concurrent spend (property)', () => {
  it('never lets a subtree overshoot its grant by more than the usage of the calls in flight when it was reached', () => {
    fc.assert(
      fc.property(scenario, (input) => {
        const { budget, watches } = simulate(input);
        for (const w of watches) {
          const spent = budget.ledger.subtree(w.node)[w.axis];
          // spent ≤ limit + Σ actual usage of the calls in flight under the grant when it was reached.
          expect(spent).toBeLessThanOrEqual(w.limit + (w.reachedWith ?? 0));
          if (w.reachedWith === undefined) expect(spent).toBeLessThan(w.limit);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('keeps every subtree sum equal to the sum of its nodes', () => {
    fc.assert(
      fc.property(scenario, (input) => {
        const { budget, tree, ids } = simulate(input);
        for (const id of ids) {
          const nodes = tree.deepestFirst(id);
          const tokens = nodes.reduce((sum, n) => sum + n.usage.input_tokens, 0);
          const usd = nodes.reduce((sum, n) => sum + (n.usage.cost_usd ?? 0), 0);
          expect(budget.ledger.subtree(id)).toEqual({ tokens, usd });
          expect(subtreeUsage(tree, id).input_tokens).toBe(tokens);
        }
        // Nothing is left held once every call has reported.
        expect(budget.ledger.inFlight(ids[0]!)).toBe(0);
      }),
      { numRuns: 300 },
    );
  });
});
