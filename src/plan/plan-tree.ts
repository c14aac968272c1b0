import type { Plan } from './plan.js';
import type { Subtask } from './subtask.js';

/**
 * Reading the tree a flat subtask list expresses through `parent`. Pointers are soft: a parent or
 * dep that names no subtask is allowed here (a fragment's parent may live outside the slice) and
 * reported by `validatePlan` when the plan is meant to be whole.
 */

/** The first subtask with this id (validation reports duplicates). */
export function subtaskById(plan: Plan, id: string): Subtask | undefined {
  return plan.subtask.find((subtask) => subtask.id === id);
}

/** Subtasks with no parent, in document order. */
export function roots(plan: Plan): Subtask[] {
  return plan.subtask.filter((subtask) => subtask.parent === undefined);
}

/** Subtasks that name `id` as their parent, in document order. */
export function children(plan: Plan, id: string): Subtask[] {
  return plan.subtask.filter((subtask) => subtask.parent === id);
}

/** The ids some subtask names as its parent: the branches, plus any parent the plan lacks. */
export function branchIds(plan: Plan): Set<string> {
  const ids = new Set<string>();
  for (const subtask of plan.subtask) if (subtask.parent !== undefined) ids.add(subtask.parent);
  return ids;
}

/** A branch groups the subtasks that name it as parent; it is never dispatched itself. */
export function isBranch(plan: Plan, id: string): boolean {
  return plan.subtask.some((subtask) => subtask.parent === id);
}

/** Subtasks no other subtask names as parent: the units that are dispatched, in document order. */
export function leaves(plan: Plan): Subtask[] {
  const branches = branchIds(plan);
  return plan.subtask.filter((subtask) => !branches.has(subtask.id));
}

/** The leaves nothing depends on: what a plan delivers, in document order. */
export function finalLeaves(plan: Plan): Subtask[] {
  const dependedOn = new Set(plan.subtask.flatMap((subtask) => subtask.deps));
  return leaves(plan).filter((leaf) => !dependedOn.has(leaf.id));
}
