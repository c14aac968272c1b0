import { z } from 'zod';
import { SamplingSchema } from './intelligence.js';
import { ToolDefSchema, TranscriptMessageSchema } from './messages.js';

/**
 * What one recorded model call of a node asked for, as a replay compares the node's request with
 * it. Each field is absent when the recording arbor did not record it; its check is then skipped.
 */
export const ReplayCallSchema = z.object({
  /** The digest of the tools set offered (`tools` of the replay holds the set). */
  tools_digest: z.string().optional(),
  /** The digest of the system prompt sent (`systems` of the replay holds the text). */
  system_digest: z.string().optional(),
  /** The model the loop asked for (a budget degrade); absent: the endpoint's. */
  request_model: z.string().optional(),
  /** The model that answered, as recorded. */
  model: z.string(),
  sampling: SamplingSchema.optional(),
});
export type ReplayCall = z.infer<typeof ReplayCallSchema>;

/**
 * Set only on a node of a replay (`arbor replay`): the node's records, which its model answers are
 * served from instead of an endpoint. `tool_results: recorded` serves its tool results from the
 * record too (the tree's own tools — `subagent.*` — still run: its children are replayed in turn).
 * Before each call the node's request (messages, system prompt, tools) is compared with the
 * recorded one; the first difference is a divergence, reported as `replay.divergence`, after which
 * the node either fails (`replay_diverged`) or, with `continue_live`, goes on with its intelligence.
 */
export const ReplayPayloadSchema = z.object({
  /** The node's transcript as recorded (reasoning kept, to be sent back as it was). */
  transcript: z.array(TranscriptMessageSchema),
  /** Its model calls in order; a node recorded before calls were recorded has none. */
  calls: z.array(ReplayCallSchema).default([]),
  /** The tools sets the calls offered, by digest. */
  tools: z.record(z.string(), z.array(ToolDefSchema)).default({}),
  /** The system prompts the calls sent, by digest. */
  systems: z.record(z.string(), z.string()).default({}),
  tool_results: z.enum(['recorded', 'live']).default('recorded'),
  /** The first model call (from 1) made live whatever the record holds: a fork's step. */
  live_from: z.number().int().positive().optional(),
  /** After a divergence the node goes on live (with its intelligence) instead of failing. */
  continue_live: z.boolean().default(false),
  /**
   * The working directory the run was recorded in: the relative paths of its recorded calls are
   * checked against the grant from there. Absent (an older record): the node's own.
   */
  cwd: z.string().min(1).optional(),
});
export type ReplayPayload = z.infer<typeof ReplayPayloadSchema>;

/** The kinds of divergence a replayed node can find in its own request before a call. */
export const REQUEST_DIVERGENCES = ['system', 'tools', 'model'] as const;
