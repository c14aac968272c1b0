import { z } from 'zod';

/**
 * The Anthropic messages wire shapes arbor reads and writes (`POST /messages`, API version
 * 2023-06-01). Used by the client to build requests and validate responses, and by the fake LLM
 * server to validate requests. Objects are loose: fields arbor does not read are tolerated.
 */

export const ANTHROPIC_VERSION = '2023-06-01';

/**
 * A prompt-cache breakpoint: the prefix up to and including the block that carries it is cached
 * (five minutes, or an hour with `ttl: "1h"`). At most four per request.
 */
const CacheControlSchema = z.looseObject({
  type: z.literal('ephemeral'),
  ttl: z.enum(['5m', '1h']).optional(),
});
export type AnthropicCacheControl = z.infer<typeof CacheControlSchema>;
const cacheControl = CacheControlSchema.optional();

const TextBlockSchema = z.looseObject({
  type: z.literal('text'),
  text: z.string(),
  cache_control: cacheControl,
});
const ToolUseBlockSchema = z.looseObject({
  type: z.literal('tool_use'),
  id: z.string().min(1),
  name: z.string().min(1),
  input: z.record(z.string(), z.unknown()),
  cache_control: cacheControl,
});
const ToolResultBlockSchema = z.looseObject({
  type: z.literal('tool_result'),
  tool_use_id: z.string().min(1),
  content: z.union([z.string(), z.array(z.looseObject({ type: z.string() }))]).optional(),
  is_error: z.boolean().optional(),
  cache_control: cacheControl,
});
/** Extended thinking: what the model thought, and the signature that proves it unaltered. */
export const ThinkingBlockSchema = z.looseObject({
  type: z.literal('thinking'),
  thinking: z.string(),
  signature: z.string(),
});
/** Thinking the safety systems flagged, encrypted: `data` goes back as it came. */
export const RedactedThinkingBlockSchema = z.looseObject({
  type: z.literal('redacted_thinking'),
  data: z.string(),
});
export type AnthropicTextBlock = z.infer<typeof TextBlockSchema>;
export type AnthropicToolUseBlock = z.infer<typeof ToolUseBlockSchema>;
export type AnthropicThinkingBlock = z.infer<typeof ThinkingBlockSchema>;
export type AnthropicRedactedThinkingBlock = z.infer<typeof RedactedThinkingBlockSchema>;

/** The block types of extended thinking, which arbor keeps verbatim and sends back. */
export const THINKING_BLOCK_TYPES: readonly string[] = ['thinking', 'redacted_thinking'];

const KNOWN_BLOCKS = ['text', 'tool_use', 'tool_result', ...THINKING_BLOCK_TYPES];
/**
 * Blocks arbor does not produce or read (images, documents): passed over. A block whose type is
 * known never matches this one, so a block of type `text` is a valid text block.
 */
const OtherBlockSchema = z.looseObject({
  type: z.string().refine((type) => !KNOWN_BLOCKS.includes(type), 'unexpected block shape'),
});

const AnthropicBlockSchema = z.union([
  TextBlockSchema,
  ToolUseBlockSchema,
  ToolResultBlockSchema,
  ThinkingBlockSchema,
  RedactedThinkingBlockSchema,
  OtherBlockSchema,
]);

const AnthropicMessageSchema = z.looseObject({
  role: z.enum(['user', 'assistant']),
  content: z.union([z.string(), z.array(AnthropicBlockSchema)]),
});

/** The request's fields; the schema itself tolerates others (see `AnthropicRequestSchema`). */
const AnthropicRequestFields = z.object({
  model: z.string().min(1),
  max_tokens: z.number().int().positive(),
  system: z.union([z.string(), z.array(TextBlockSchema)]).optional(),
  messages: z.array(AnthropicMessageSchema).min(1),
  tools: z
    .array(
      z.looseObject({
        name: z.string().min(1),
        description: z.string().optional(),
        input_schema: z.record(z.string(), z.unknown()),
        cache_control: cacheControl,
      }),
    )
    .optional(),
  tool_choice: z
    .looseObject({ type: z.enum(['auto', 'any', 'none', 'tool']), name: z.string().optional() })
    .optional(),
  stream: z.boolean().optional(),
  temperature: z.number().optional(),
  top_p: z.number().optional(),
  stop_sequences: z.array(z.string()).optional(),
  /** Extended thinking, with its token budget (at least 1024, below `max_tokens`). */
  thinking: z
    .union([
      z.looseObject({ type: z.literal('enabled'), budget_tokens: z.number().int().positive() }),
      z.looseObject({ type: z.literal('disabled') }),
    ])
    .optional(),
});
export const AnthropicRequestSchema = AnthropicRequestFields.loose();
export type AnthropicRequest = z.input<typeof AnthropicRequestSchema>;

type AnthropicToolDefinition = NonNullable<z.input<typeof AnthropicRequestFields>['tools']>[number];

type ToolResultBlock = z.infer<typeof ToolResultBlockSchema>;
/** A tool result as arbor sends it: the result rendered as text. */
type SentToolResult = {
  [K in keyof ToolResultBlock as K extends 'content' ? never : K]: ToolResultBlock[K];
} & { content: string };
/** The blocks arbor writes (a subset of what `AnthropicRequestSchema` accepts). */
export type AnthropicSentBlock =
  | AnthropicTextBlock
  | AnthropicToolUseBlock
  | SentToolResult
  | AnthropicThinkingBlock
  | AnthropicRedactedThinkingBlock;
/** A message as arbor writes it: always a list of blocks. */
export interface AnthropicSentMessage {
  role: 'user' | 'assistant';
  content: AnthropicSentBlock[];
}
/**
 * The body arbor writes for `POST /messages`: `AnthropicRequestSchema`'s shape, narrowed to what
 * arbor sends (checked against the official SDK's types in `test/intel/sdk-types-anthropic.test.ts`).
 */
export type AnthropicSentRequest = Omit<
  z.input<typeof AnthropicRequestFields>,
  'system' | 'messages' | 'stream' | 'tool_choice' | 'tools'
> & {
  /** The API takes only object schemas for tool input. */
  tools?: (AnthropicToolDefinition & { input_schema: { type: 'object' } })[];
  system?: string | AnthropicTextBlock[];
  tool_choice?: { type: 'auto' | 'any' | 'none' };
  messages: AnthropicSentMessage[];
  stream?: true;
};

const AnthropicUsageSchema = z.looseObject({
  input_tokens: z.number().int().nonnegative().optional(),
  output_tokens: z.number().int().nonnegative().optional(),
  cache_creation_input_tokens: z.number().int().nonnegative().nullish(),
  cache_read_input_tokens: z.number().int().nonnegative().nullish(),
  /** The cache writes by lifetime; their sum is `cache_creation_input_tokens`. */
  cache_creation: z
    .looseObject({
      ephemeral_5m_input_tokens: z.number().int().nonnegative().nullish(),
      ephemeral_1h_input_tokens: z.number().int().nonnegative().nullish(),
    })
    .nullish(),
});
export type AnthropicUsage = z.input<typeof AnthropicUsageSchema>;

export const AnthropicResponseSchema = z.looseObject({
  id: z.string().optional(),
  type: z.literal('message'),
  role: z.literal('assistant').optional(),
  model: z.string().optional(),
  content: z.array(AnthropicBlockSchema),
  stop_reason: z.string().nullish(),
  stop_sequence: z.string().nullish(),
  usage: AnthropicUsageSchema.optional(),
});
export type AnthropicResponse = z.input<typeof AnthropicResponseSchema>;

const ErrorSchema = z.looseObject({ type: z.string(), message: z.string() });

/** The server-sent events of a streamed answer. Types not listed here are skipped. */
export const AnthropicStreamEventSchema = z.discriminatedUnion('type', [
  z.looseObject({
    type: z.literal('message_start'),
    message: z.looseObject({
      model: z.string().optional(),
      usage: AnthropicUsageSchema.optional(),
    }),
  }),
  z.looseObject({
    type: z.literal('content_block_start'),
    index: z.number().int().nonnegative(),
    content_block: z.looseObject({
      type: z.string(),
      id: z.string().optional(),
      name: z.string().optional(),
      text: z.string().optional(),
      thinking: z.string().optional(),
      signature: z.string().optional(),
      data: z.string().optional(),
    }),
  }),
  z.looseObject({
    type: z.literal('content_block_delta'),
    index: z.number().int().nonnegative(),
    delta: z.looseObject({
      type: z.string(),
      text: z.string().optional(),
      partial_json: z.string().optional(),
      thinking: z.string().optional(),
      signature: z.string().optional(),
    }),
  }),
  z.looseObject({ type: z.literal('content_block_stop'), index: z.number().int().nonnegative() }),
  z.looseObject({
    type: z.literal('message_delta'),
    delta: z.looseObject({ stop_reason: z.string().nullish() }),
    usage: AnthropicUsageSchema.optional(),
  }),
  z.looseObject({ type: z.literal('message_stop') }),
  z.looseObject({ type: z.literal('ping') }),
  z.looseObject({ type: z.literal('error'), error: ErrorSchema }),
]);

/** The error body of a failed request: `{"type": "error", "error": {"type", "message"}}`. */
export const AnthropicErrorBodySchema = z.looseObject({
  type: z.literal('error'),
  error: ErrorSchema,
});
export type AnthropicErrorBody = z.input<typeof AnthropicErrorBodySchema>;
