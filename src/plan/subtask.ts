import { z } from 'zod';
import { PositiveIntSchema } from '../protocol/index.js';
import { CaveatPolicySchema } from '../authority/index.js';

/**
 * Where a subtask is in its run. newt's four plus `blocked` (a dependency failed, so it cannot
 * run) and `cancelled` (the run was stopped before it finished), so a run-log says why a subtask
 * never ran instead of leaving it `pending`.
 */
export const SUBTASK_STATUSES = [
  'pending',
  'running',
  'done',
  'failed',
  'blocked',
  'cancelled',
] as const;
const SubtaskStatusSchema = z.enum(SUBTASK_STATUSES);
export type SubtaskStatus = z.infer<typeof SubtaskStatusSchema>;

/** The role of a node in a roadmap → phase → plan → task tree. */
export const NODE_KINDS = ['roadmap', 'phase', 'plan', 'task'] as const;
const NodeKindSchema = z.enum(NODE_KINDS);

/** The work an evaluator reads to close a node: a branch and commit, a pull request, an issue. */
export const ArtifactRefSchema = z.strictObject({
  branch: z.string().optional(),
  commit: z.string().optional(),
  pr: PositiveIntSchema.optional(),
  issue: PositiveIntSchema.optional(),
});
export type ArtifactRef = z.infer<typeof ArtifactRefSchema>;

/**
 * One unit of work in a plan: one `[[subtask]]` table. A flat list of these is both a DAG (through
 * `deps`) and a tree (through `parent`); a subtask that nobody names as its parent is a leaf and
 * is dispatched, any other is a branch that groups its children. `status` and `result` make the
 * same file the run-log. Blank ids and instructions parse, so validation can report them with the
 * rest of a plan's problems.
 */
export const SubtaskSchema = z.strictObject({
  /** Stable identifier, referenced by other subtasks' `deps` and `parent`. */
  id: z.string(),
  /** What the child agent is asked to do. */
  instruction: z.string(),
  /** Ids of subtasks that must be done before this one may start. */
  deps: z.array(z.string()).default(() => []),
  /** May this subtask run at the same time as other ready subtasks? */
  parallel_ok: z.boolean().default(false),
  /** The leaf's write lane: files, or directories and everything under them. Empty: unfenced. */
  context: z.array(z.string()).default(() => []),
  /** A command whose success gates the subtask. */
  verify: z.string().optional(),
  status: SubtaskStatusSchema.default('pending'),
  /** What the subtask produced, once it has run. */
  result: z.string().optional(),
  /** The subtask this one is part of; absent for a root. */
  parent: z.string().optional(),
  kind: NodeKindSchema.default('task'),
  /** For a `plan` node: the conversation that is this plan's context. */
  conversation_id: z.string().optional(),
  artifact_ref: ArtifactRefSchema.optional(),
  /**
   * Tool calls arbor refused the subtask's leaf in its last run (a caveat, a policy, `max_calls`):
   * a leaf can end `done` although it was refused every call it tried. Absent: none.
   */
  refused_calls: PositiveIntSchema.optional(),
  /** The authority the subtask asks for. Omitted axes, or an omitted policy, deny. */
  caveat_policy: CaveatPolicySchema.default(() => ({})),
});
export type Subtask = z.infer<typeof SubtaskSchema>;
/** A subtask as written, before defaults are filled in. */
export type SubtaskInput = z.input<typeof SubtaskSchema>;
