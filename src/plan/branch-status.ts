import type { Plan } from './plan.js';
import type { Subtask, SubtaskStatus } from './subtask.js';

type Counts = Record<SubtaskStatus, number>;

function zero(): Counts {
  return { pending: 0, running: 0, done: 0, failed: 0, blocked: 0, cancelled: 0 };
}

/**
 * A branch's status from its direct children's: `done` once every child is done (the branch
 * closes), otherwise the most telling state below it — running, then failed, blocked, cancelled;
 * a branch with some children done and the rest waiting is `running` (under way).
 */
function branchStatus(counts: Counts, total: number): SubtaskStatus {
  if (counts.done === total) return 'done';
  if (counts.running > 0) return 'running';
  if (counts.failed > 0) return 'failed';
  if (counts.blocked > 0) return 'blocked';
  if (counts.cancelled > 0) return 'cancelled';
  return counts.done > 0 ? 'running' : 'pending';
}

/** A branch: its subtask, and its direct children counted by status. */
interface BranchState {
  subtask: Subtask;
  counts: Counts;
  total: number;
}

/**
 * Keeps every branch's status in step with its leaves: per branch, counts of its children by
 * status, so a leaf's change walks up its ancestors only (O(depth), not O(plan)).
 */
export class BranchTracker {
  readonly #branches = new Map<string, BranchState>();

  constructor(plan: Plan) {
    const byId = new Map(plan.subtask.map((subtask) => [subtask.id, subtask]));
    for (const subtask of plan.subtask) {
      const parent = subtask.parent === undefined ? undefined : byId.get(subtask.parent);
      if (parent === undefined) continue;
      const state = this.#branches.get(parent.id);
      if (state === undefined)
        this.#branches.set(parent.id, { subtask: parent, counts: zero(), total: 1 });
      else state.total += 1;
    }
    // Leaves are counted first; then branches settle deepest first, each counted in its parent.
    for (const subtask of plan.subtask) {
      if (!this.#branches.has(subtask.id)) this.#count(subtask);
    }
    const depthOf = (subtask: Subtask): number => {
      let depth = 0;
      const seen = new Set<string>();
      for (
        let at = this.#parentOf(subtask);
        at !== undefined && !seen.has(at.subtask.id);
        depth++
      ) {
        seen.add(at.subtask.id);
        at = this.#parentOf(at.subtask);
      }
      return depth;
    };
    const deepestFirst = [...this.#branches.values()].sort(
      (a, b) => depthOf(b.subtask) - depthOf(a.subtask),
    );
    for (const branch of deepestFirst) {
      branch.subtask.status = branchStatus(branch.counts, branch.total);
      this.#count(branch.subtask);
    }
  }

  /** Whether `id` groups other subtasks. */
  isBranch(id: string): boolean {
    return this.#branches.has(id);
  }

  /**
   * Sets a leaf's status and settles its ancestors; returns every subtask whose status changed,
   * the leaf first, then its ancestors from the nearest up.
   */
  set(leaf: Subtask, status: SubtaskStatus): Subtask[] {
    if (leaf.status === status) return [];
    const changed: Subtask[] = [leaf];
    let from = leaf.status;
    let to = status;
    leaf.status = status;
    for (
      let branch = this.#parentOf(leaf);
      branch !== undefined;
      branch = this.#parentOf(branch.subtask)
    ) {
      branch.counts[from] -= 1;
      branch.counts[to] += 1;
      const next = branchStatus(branch.counts, branch.total);
      if (next === branch.subtask.status) break;
      from = branch.subtask.status;
      to = next;
      branch.subtask.status = next;
      changed.push(branch.subtask);
    }
    return changed;
  }

  #count(subtask: Subtask): void {
    const parent = this.#parentOf(subtask);
    if (parent !== undefined) parent.counts[subtask.status] += 1;
  }

  #parentOf(subtask: Subtask): BranchState | undefined {
    return subtask.parent === undefined ? undefined : this.#branches.get(subtask.parent);
  }
}
