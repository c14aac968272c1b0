import { z } from 'zod';
import { TranscriptMessageSchema } from './messages.js';
import { UsageSchema } from './outcome.js';

/**
 * What `arbor runs --json` and the dashboard's API answer, in the field names of the events and the
 * store (`run_id`, `path`, `status`, …). The server builds these (`src/dashboard/run-views.ts`),
 * the CLI prints them, and the dashboard's page (`ui/`) reads them: one definition for all three.
 * This module imports nothing but zod and schemas that do the same, so the page type-checks
 * against it.
 */

/** A run in a line: status, times, size and what it used (every node's own usage summed). */
export const RunSummarySchema = z.object({
  run_id: z.string(),
  status: z.string(),
  instruction: z.string(),
  created_at: z.string(),
  ended_at: z.string().optional(),
  duration_ms: z.number().optional(),
  nodes: z.number(),
  input_tokens: z.number(),
  output_tokens: z.number(),
  /** The cache and reasoning splits, where any node's calls reported them (see `UsageSchema`). */
  ...UsageSchema.pick({
    cache_read_tokens: true,
    cache_write_tokens: true,
    cache_write_1h_tokens: true,
    reasoning_tokens: true,
  }).shape,
  cost_usd: z.number().optional(),
});
export type RunSummary = z.infer<typeof RunSummarySchema>;

/** A node with its own and its subtree's usage. */
export const NodeViewSchema = z.object({
  node_id: z.string(),
  path: z.string(),
  parent_id: z.string().optional(),
  depth: z.number(),
  provider: z.string(),
  status: z.string(),
  instruction: z.string(),
  started_at: z.string().optional(),
  ended_at: z.string().optional(),
  duration_ms: z.number().optional(),
  usage: UsageSchema,
  subtree_usage: UsageSchema,
  result: z.unknown().optional(),
  reason: z.string().optional(),
  /** A parked node: when it parked (it waits with no process; see `docs/durability.md`). */
  parked_since: z.string().optional(),
});
export type NodeView = z.infer<typeof NodeViewSchema>;

/** A question waiting for a person. */
export const GateViewSchema = z.object({
  gate: z.string(),
  node_id: z.string().optional(),
  question: z.string(),
  payload: z.record(z.string(), z.unknown()),
  created_at: z.string(),
});
export type GateView = z.infer<typeof GateViewSchema>;

/** A run, its tree and its open questions. */
export const RunDetailSchema = RunSummarySchema.omit({ nodes: true }).extend({
  nodes: z.array(NodeViewSchema),
  gates: z.array(GateViewSchema),
  trace_id: z.string().optional(),
  trace_url: z.string().optional(),
});
export type RunDetail = z.infer<typeof RunDetailSchema>;

/** An event as `--events ndjson` writes it (see `toWireEvent`): its fields follow in snake_case. */
export const EventLineSchema = z
  .object({
    ts: z.string(),
    run_id: z.string(),
    node_id: z.string().optional(),
    path: z.string().optional(),
    event: z.string(),
  })
  .catchall(z.unknown());
export type EventLine = z.infer<typeof EventLineSchema>;

/** A stored event as a line, with its sequence number in the store: the SSE id a reader resumes from. */
export const WireEventSchema = EventLineSchema.extend({ seq: z.number() });
export type WireEvent = z.infer<typeof WireEventSchema>;

/** One node: its view, what it was granted, its transcript and its events. */
export const NodeDetailSchema = NodeViewSchema.extend({
  grant: z.record(z.string(), z.unknown()),
  messages: z.array(TranscriptMessageSchema),
  events: z.array(WireEventSchema),
});
export type NodeDetail = z.infer<typeof NodeDetailSchema>;

/** Who is signed in to the dashboard, and which server it is. */
export const ViewerViewSchema = z.object({
  name: z.string(),
  role: z.enum(['operator', 'user']),
  can_answer: z.boolean(),
  title: z.string().optional(),
});
export type ViewerView = z.infer<typeof ViewerViewSchema>;
