import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cyclicComponents, functionalCycles, shortestCycleThrough } from '../../src/plan/index.js';

/** Which nodes each node reaches in one or more steps, by brute force. */
function reach(edges: number[][]): boolean[][] {
  const n = edges.length;
  const r = edges.map((out) => Array.from({ length: n }, (_, j) => out.includes(j)));
  for (let k = 0; k < n; k++)
    for (let i = 0; i < n; i++)
      for (let j = 0; j < n; j++) if (r[i]![k] && r[k]![j]) r[i]![j] = true;
  return r;
}

const graph = fc
  .integer({ min: 1, max: 9 })
  .chain((n) =>
    fc.array(fc.array(fc.nat({ max: n - 1 }), { maxLength: 3 }), { minLength: n, maxLength: n }),
  );

describe('cyclicComponents', () => {
  it('agrees with brute-force reachability: i and j share a component iff each reaches the other', () => {
    fc.assert(
      fc.property(graph, (edges) => {
        const r = reach(edges);
        const components = cyclicComponents(edges);
        const onCycle = edges.map((_, i) => r[i]![i]!);
        expect(components.flat().sort((a, b) => a - b)).toEqual(
          edges.map((_, i) => i).filter((i) => onCycle[i]),
        );
        for (const component of components) {
          for (const i of component) for (const j of component) expect(r[i]![j]).toBe(true);
          expect([...component].sort((a, b) => a - b)).toEqual(component);
        }
        const firsts = components.map((c) => c[0]!);
        expect([...firsts].sort((a, b) => a - b)).toEqual(firsts);
      }),
    );
  });

  it('returns a real, shortest-possible cycle through the first node of each component', () => {
    fc.assert(
      fc.property(graph, (edges) => {
        for (const component of cyclicComponents(edges)) {
          const cycle = shortestCycleThrough(edges, component, component[0]!);
          expect(cycle[0]).toBe(component[0]);
          expect(new Set(cycle).size).toBe(cycle.length);
          cycle.forEach((v, k) => {
            expect(edges[v]).toContain(cycle[(k + 1) % cycle.length]);
            expect(component).toContain(v);
          });
        }
      }),
    );
    expect(shortestCycleThrough([[1], [2, 0], [0]], [0, 1, 2], 0)).toEqual([0, 1]);
  });

  it('walks 100k nodes without recursion', () => {
    const n = 100_000;
    const ring = Array.from({ length: n }, (_, i) => [(i + 1) % n]);
    expect(cyclicComponents(ring)[0]).toHaveLength(n);
  });
});

describe('functionalCycles', () => {
  it('finds each cycle of a one-successor graph once, from its smallest node', () => {
    expect(functionalCycles([1, 2, 0, 0, 4, -1, 5])).toEqual([[0, 1, 2], [4]]);
    expect(functionalCycles([2, -1, 0])).toEqual([[0, 2]]);
    expect(functionalCycles([-1, 0, 1])).toEqual([]);
  });

  it('agrees with brute force', () => {
    const successors = fc
      .integer({ min: 1, max: 9 })
      .chain((n) => fc.array(fc.integer({ min: -1, max: n - 1 }), { minLength: n, maxLength: n }));
    fc.assert(
      fc.property(successors, (next) => {
        const edges = next.map((v) => (v === -1 ? [] : [v]));
        const r = reach(edges);
        const cycles = functionalCycles(next);
        expect(cycles.flat().sort((a, b) => a - b)).toEqual(
          next.map((_, i) => i).filter((i) => r[i]![i]),
        );
        for (const cycle of cycles) {
          expect(cycle[0]).toBe(Math.min(...cycle));
          cycle.forEach((v, k) => {
            expect(next[v]).toBe(cycle[(k + 1) % cycle.length]);
          });
        }
      }),
    );
  });
});
