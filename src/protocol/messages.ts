import { z } from 'zod';
import { CountSchema, JsonObjectSchema } from './primitives.js';

/**
 * The reserved seed role that carries the supervisor's tool allow-list inside `context_seed`.
 * Only `narrowTools` writes it; the child consumes it before the seed reaches the transcript.
 */
export const ALLOWED_TOOLS_ROLE = 'arbor/allowed-tools';

/** Roles a seed message may take. The reserved allow-list role is listed last. */
export const SEED_ROLES = ['system', 'user', 'assistant', 'tool', ALLOWED_TOOLS_ROLE] as const;

/**
 * One message of the context a parent chooses to share with a child. It is never the parent's
 * transcript: the parent picks what the child needs, which keeps the child's context clean and
 * stops an injection that landed in the parent from riding down the tree.
 */
export const SeedMessageSchema = z.object({
  role: z.enum(SEED_ROLES),
  content: z.string(),
  /** Optional speaker label (a tool name for `tool`, a principal for `user`). */
  name: z.string().optional(),
});
export type SeedMessage = z.infer<typeof SeedMessageSchema>;

/** A tool the model may call, described by a JSON Schema for its arguments. */
export const ToolDefSchema = z.object({
  /** The tool's name as arbor knows it (dots allowed; the dialects rewrite them for the wire). */
  name: z.string().min(1),
  description: z.string().default(''),
  /** JSON Schema of the arguments object. */
  input_schema: JsonObjectSchema.default({ type: 'object', properties: {} }),
});
export type ToolDef = z.infer<typeof ToolDefSchema>;

/** A tool call the model made: its id (from the model), the tool name and parsed arguments. */
export const ToolCallSchema = z.object({
  id: z.string().min(1),
  name: z.string().min(1),
  args: JsonObjectSchema.default({}),
});
export type ToolCall = z.infer<typeof ToolCallSchema>;

/**
 * What a reasoning model thought before it answered, exactly as its provider sent it: Anthropic's
 * `thinking` / `redacted_thinking` blocks (with their signatures) or the Responses API's
 * encrypted `reasoning` items. The provider requires them back, unmodified, in the next request
 * of a tool-use turn; they are sent back only to the same dialect and model, and dropped (as the
 * providers document) after a failover, a degrade, a swap or a fork onto another model. Opaque to
 * arbor: no view shows them and the secret scrubber leaves them byte for byte.
 */
export const ReasoningTraceSchema = z.object({
  dialect: z.string().min(1),
  model: z.string().min(1),
  /** The provider's blocks or items, verbatim. */
  blocks: z.array(z.unknown()),
});
export type ReasoningTrace = z.infer<typeof ReasoningTraceSchema>;

/** Milliseconds since the Unix epoch at which a transcript message was recorded. */
const TimestampSchema = CountSchema.optional();

/**
 * One entry of arbor's dialect-neutral transcript. The dialects translate it to and from the
 * OpenAI and Anthropic wire shapes; `note` is a runtime remark rendered as a system message.
 */
export const TranscriptMessageSchema = z.discriminatedUnion('role', [
  z.object({ role: z.literal('system'), text: z.string(), ts: TimestampSchema }),
  z.object({
    role: z.literal('user'),
    text: z.string(),
    /** Who said it, when it is not the operator (an A2A principal, a parent agent). */
    principal: z.string().optional(),
    ts: TimestampSchema,
  }),
  z.object({
    role: z.literal('assistant'),
    text: z.string().optional(),
    tool_calls: z.array(ToolCallSchema).default([]),
    reasoning: ReasoningTraceSchema.optional(),
    ts: TimestampSchema,
  }),
  z.object({
    role: z.literal('tool'),
    /** The id of the tool call this answers. */
    id: z.string().min(1),
    name: z.string().min(1),
    content: z.unknown(),
    is_error: z.boolean().default(false),
    ts: TimestampSchema,
  }),
  z.object({ role: z.literal('note'), text: z.string(), ts: TimestampSchema }),
]);
export type TranscriptMessage = z.infer<typeof TranscriptMessageSchema>;
