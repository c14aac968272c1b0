import { z } from 'zod';
import { ToolDefSchema, TranscriptMessageSchema } from './messages.js';
import { CountSchema, JsonObjectSchema, JsonValueSchema, PositiveIntSchema } from './primitives.js';
import { TerminalStatusSchema, UsageSchema } from './outcome.js';

/** What a child is: an agent running its own loop, or a worker running one turn it is handed. */
export const RoleSchema = z.enum(['agent', 'turn']);
export type Role = z.infer<typeof RoleSchema>;

/**
 * The kind of turn a worker runs: `turn` (a conversation turn with tools), `think` (no tools, a
 * structured value out), `agent` (a bounded agentic run with tools and a contract).
 */
export const TurnKindSchema = z.enum(['turn', 'think', 'agent']);
export type TurnKind = z.infer<typeof TurnKindSchema>;

/** Where a tool the worker calls directly lives: the MCP server and the tool's name there. */
export const McpRouteSchema = z.object({
  server: z.string().min(1),
  tool: z.string().min(1),
});
export type McpRoute = z.infer<typeof McpRouteSchema>;

/** The input of a turn worker (`role: turn`). */
export const TurnSpecSchema = z.object({
  turn_id: z.string().min(1),
  kind: TurnKindSchema.default('turn'),
  /** The whole system prompt for this turn. */
  system: z.string().default(''),
  /** The transcript slice the turn runs over; its last message is what the turn reacts to. */
  messages: z.array(TranscriptMessageSchema),
  /** Tools the model sees. */
  tools: z.array(ToolDefSchema).default([]),
  /** Tool names served by the supervisor: the worker sends these as `tool_request`. */
  internal: z.array(z.string()).default([]),
  /** Tools the worker calls itself, by name → (server, tool on that server). */
  mcp_routes: z.record(z.string(), McpRouteSchema).default({}),
  /** JSON Schema the turn's answer must satisfy. */
  output_schema: JsonObjectSchema.optional(),
  /** Model calls allowed in this turn; absent means `limits.max_steps`. */
  max_rounds: PositiveIntSchema.optional(),
  /** Ask the supervisor for budget admission before each model call. */
  budget_admission: z.boolean().default(false),
  /** Prefix of idempotency keys stamped on this turn's tool calls. */
  idempotency_prefix: z.string().default(''),
  /** Extra `_meta` entries stamped on this turn's MCP calls. */
  tool_meta: JsonObjectSchema.default({}),
  temperature: z.number().min(0).max(2).optional(),
  /** Output-token cap per model call. */
  max_tokens_per_call: PositiveIntSchema.optional(),
});
export type TurnSpec = z.infer<typeof TurnSpecSchema>;

/** What the model said when it called `finish`. */
export const FinishSchema = z.object({
  status: z.enum(['completed', 'failed', 'refused']).default('completed'),
  output: JsonValueSchema.default(null),
  reason: z.string().optional(),
});
export type Finish = z.infer<typeof FinishSchema>;

/** What a turn worker hands back: the transcript delta, the answer, usage and counts. */
export const TurnResultSchema = z.object({
  turn_id: z.string().min(1),
  status: TerminalStatusSchema,
  /** Messages the turn appended to the transcript, in order. */
  messages: z.array(TranscriptMessageSchema).default([]),
  /** The final answer text, if any. */
  text: z.string().optional(),
  /** The parsed structured answer, when an output schema applied. */
  value: JsonValueSchema.optional(),
  usage: UsageSchema,
  /** Model calls made. */
  rounds: CountSchema.default(0),
  tool_calls: CountSchema.default(0),
  error: z.string().optional(),
  finish: FinishSchema.optional(),
});
export type TurnResult = z.infer<typeof TurnResultSchema>;
