import { z } from 'zod';
import { UsageSchema } from '../protocol/index.js';

/**
 * The shape `arbor runs diff --json` prints, and `diffRuns` returns: the first place two recorded
 * runs went apart, each node side by side, and each run's outcome (see docs/replay.md).
 */

/** What differed at the first divergence. */
const DivergenceKindSchema = z.enum([
  /** A node is in one run only (`step` is null). */
  'node',
  /** The messages at the same place have different roles. */
  'role',
  /** The text of a system, user, assistant or note message (or a user's principal). */
  'text',
  /** An answer's tool calls: how many, their names or their arguments (never their ids). */
  'tool_calls',
  /** A tool result: its tool, its content or its error flag. */
  'tool_result',
  /** One transcript ends where the other goes on. */
  'ended',
  /** The transcripts are the same, but the node ended another way (status or result). */
  'outcome',
]);

/** The first divergence: where, and what each run had there (a few lines; null: nothing). */
const DivergenceSchema = z.object({
  path: z.string(),
  /**
   * The model call whose request or answer differs, from 1 (as `loop.step` counts): an answer is
   * its call's step; any other message is part of the request of the call after it. Null for a
   * `node` or `outcome` divergence.
   */
  step: z.number().int().positive().nullable(),
  what: DivergenceKindSchema,
  a: z.string().nullable(),
  b: z.string().nullable(),
});
export type Divergence = z.infer<typeof DivergenceSchema>;

/** One run's side of a node. */
const NodeSideSchema = z.object({
  node_id: z.string(),
  status: z.string(),
  /** Model calls the node made (its `model.call` events). */
  steps: z.number().int().nonnegative(),
  /** The tools its answers called, in order (from its transcript). */
  tools: z.array(z.string()),
  usage: UsageSchema,
});
export type NodeSide = z.infer<typeof NodeSideSchema>;

/** A node path and what each run had there (null: the run has no node at that path). */
const NodePairSchema = z.object({
  path: z.string(),
  a: NodeSideSchema.nullable(),
  b: NodeSideSchema.nullable(),
});
export type NodePair = z.infer<typeof NodePairSchema>;

/** One run in sum: its status, size, usage (every node's own, summed) and answer, cut short. */
const RunSideSchema = UsageSchema.extend({
  run_id: z.string(),
  status: z.string(),
  instruction: z.string(),
  nodes: z.number().int().nonnegative(),
  steps: z.number().int().nonnegative(),
  /** The root's result as text, cut to `RESULT_CHARS`; null: none. */
  result: z.string().nullable(),
  reason: z.string().optional(),
});
export type RunSide = z.infer<typeof RunSideSchema>;

export const RunDiffSchema = z.object({
  first_divergence: DivergenceSchema.nullable(),
  /** Every path of either run, in tree order (parents first, siblings by number). */
  nodes: z.array(NodePairSchema),
  runs: z.object({ a: RunSideSchema, b: RunSideSchema }),
});
export type RunDiff = z.infer<typeof RunDiffSchema>;
