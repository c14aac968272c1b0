/**
 * Cycle finding on graphs given as adjacency lists over node numbers `0..n-1`. Both functions are
 * iterative and linear in nodes plus edges, so a plan of 100k subtasks cannot overflow the stack.
 */

/** `list[i]`, for indices the algorithms below know to be in range. */
function at(list: ArrayLike<number>, i: number): number {
  return list[i] ?? -1;
}

/**
 * The strongly connected components that hold a cycle (more than one node, or one node with an
 * edge to itself), by Tarjan's algorithm. Each component lists its nodes in ascending order, and
 * components come ordered by their smallest node, so reports follow document order.
 */
export function cyclicComponents(edges: readonly (readonly number[])[]): number[][] {
  const n = edges.length;
  const index = new Int32Array(n).fill(-1);
  const low = new Int32Array(n);
  const next = new Int32Array(n); // the next edge of each node to explore
  const onStack = new Uint8Array(n);
  const stack: number[] = [];
  const work: number[] = []; // the DFS path, in place of recursion
  const found: number[][] = [];
  let counter = 0;
  const open = (v: number): void => {
    index[v] = low[v] = counter++;
    stack.push(v);
    onStack[v] = 1;
    work.push(v);
  };
  for (let start = 0; start < n; start++) {
    if (at(index, start) !== -1) continue;
    open(start);
    while (work.length > 0) {
      const v = at(work, work.length - 1);
      const out = edges[v] ?? [];
      const i = at(next, v);
      if (i < out.length) {
        next[v] = i + 1;
        const w = at(out, i);
        if (at(index, w) === -1) open(w);
        else if (onStack[w] === 1) low[v] = Math.min(at(low, v), at(index, w));
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const caller = at(work, work.length - 1);
        low[caller] = Math.min(at(low, caller), at(low, v));
      }
      if (at(low, v) !== at(index, v)) continue;
      const component: number[] = [];
      for (let w = -1; w !== v;) {
        w = stack.pop() ?? v;
        onStack[w] = 0;
        component.push(w);
      }
      if (component.length > 1 || out.includes(v)) found.push(component.sort((a, b) => a - b));
    }
  }
  return found.sort((a, b) => at(a, 0) - at(b, 0));
}

/**
 * A shortest cycle through `start` that stays inside `component` (which must be strongly
 * connected and contain `start`), as the nodes in order, without repeating `start` at the end.
 */
export function shortestCycleThrough(
  edges: readonly (readonly number[])[],
  component: readonly number[],
  start: number,
): number[] {
  const inside = new Set(component);
  const previous = new Map<number, number>();
  const queue = [start];
  for (let head = 0; head < queue.length; head++) {
    const v = at(queue, head);
    for (const w of edges[v] ?? []) {
      if (!inside.has(w)) continue;
      if (w === start) return pathBack(previous, start, v);
      if (previous.has(w)) continue;
      previous.set(w, v);
      queue.push(w);
    }
  }
  return [start];
}

/** The BFS path from `start` to `last`, read back through `previous`. */
function pathBack(previous: ReadonlyMap<number, number>, start: number, last: number): number[] {
  const path = [last];
  for (let v = last; v !== start;) {
    v = previous.get(v) ?? start;
    path.push(v);
  }
  return path.reverse();
}

/**
 * The cycles of a graph where each node has at most one successor (`-1` for none), such as
 * parent pointers. Each cycle is listed once, starting at its smallest node, in pointer order.
 */
export function functionalCycles(successor: readonly number[]): number[][] {
  const state = new Uint8Array(successor.length); // 0 unseen, 1 on the current walk, 2 finished
  const cycles: number[][] = [];
  for (let start = 0; start < successor.length; start++) {
    const walk: number[] = [];
    let v = start;
    while (v !== -1 && state[v] === 0) {
      state[v] = 1;
      walk.push(v);
      v = at(successor, v);
    }
    if (v !== -1 && state[v] === 1) cycles.push(rotateToSmallest(walk.slice(walk.indexOf(v))));
    for (const w of walk) state[w] = 2;
  }
  return cycles.sort((a, b) => at(a, 0) - at(b, 0));
}

function rotateToSmallest(cycle: number[]): number[] {
  let smallest = 0;
  cycle.forEach((v, i) => {
    if (v < at(cycle, smallest)) smallest = i;
  });
  return [...cycle.slice(smallest), ...cycle.slice(0, smallest)];
}
