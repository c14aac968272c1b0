import { z } from 'zod';
import { ReasoningEffortSchema } from '../protocol/index.js';

/**
 * The OpenAI chat-completions wire shapes arbor reads and writes. The client builds requests of
 * these types and validates responses with these schemas; the fake LLM server validates requests
 * with them. Objects are loose: providers add fields all the time, and a field arbor does not read
 * must not fail a call.
 */

const TextPartSchema = z.looseObject({ type: z.literal('text'), text: z.string() });
/** Message content: a string, or (newer clients) an array of parts. */
const ContentSchema = z.union([z.string(), z.array(z.looseObject({ type: z.string() }))]);

const OpenAiToolCallSchema = z.looseObject({
  id: z.string().min(1),
  type: z.literal('function').default('function'),
  function: z.looseObject({ name: z.string().min(1), arguments: z.string() }),
});

const OpenAiMessageSchema = z.discriminatedUnion('role', [
  z.looseObject({ role: z.literal('system'), content: ContentSchema }),
  z.looseObject({ role: z.literal('developer'), content: ContentSchema }),
  z.looseObject({ role: z.literal('user'), content: ContentSchema, name: z.string().optional() }),
  z.looseObject({
    role: z.literal('assistant'),
    content: ContentSchema.nullable().optional(),
    tool_calls: z.array(OpenAiToolCallSchema).optional(),
  }),
  z.looseObject({
    role: z.literal('tool'),
    tool_call_id: z.string().min(1),
    content: z.union([z.string(), z.array(TextPartSchema)]),
  }),
]);
export type OpenAiMessage = z.input<typeof OpenAiMessageSchema>;

const OpenAiToolSchema = z.looseObject({
  type: z.literal('function'),
  function: z.looseObject({
    name: z.string().min(1),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
  }),
});

export const OpenAiRequestSchema = z.looseObject({
  model: z.string().min(1),
  messages: z.array(OpenAiMessageSchema).min(1),
  tools: z.array(OpenAiToolSchema).optional(),
  tool_choice: z
    .union([
      z.enum(['auto', 'none', 'required']),
      z.looseObject({ type: z.literal('function'), function: z.object({ name: z.string() }) }),
    ])
    .optional(),
  stream: z.boolean().optional(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullish(),
  temperature: z.number().optional(),
  top_p: z.number().optional(),
  /** The output cap as every OpenAI-compatible server knows it; OpenAI's reasoning models refuse it. */
  max_tokens: z.number().int().positive().optional(),
  /** The output cap, reasoning included, as OpenAI and Azure OpenAI take it. */
  max_completion_tokens: z.number().int().positive().optional(),
  stop: z.union([z.string(), z.array(z.string())]).optional(),
  seed: z.number().int().optional(),
  /** How hard a reasoning model thinks. */
  reasoning_effort: ReasoningEffortSchema.optional(),
});
export type OpenAiRequest = z.input<typeof OpenAiRequestSchema>;

const TokenCountSchema = z.number().int().nonnegative();

/**
 * Token usage. `prompt_tokens` counts the whole prompt, its cached prefix included; the cached part
 * is `prompt_tokens_details.cached_tokens`. `completion_tokens` counts the answer and the reasoning
 * before it; the reasoning part is `completion_tokens_details.reasoning_tokens`. Servers that are
 * not OpenAI's may omit the details, or send them as `null`.
 */
const OpenAiUsageSchema = z.looseObject({
  prompt_tokens: TokenCountSchema,
  completion_tokens: TokenCountSchema,
  total_tokens: TokenCountSchema.optional(),
  prompt_tokens_details: z.looseObject({ cached_tokens: TokenCountSchema.nullish() }).nullish(),
  completion_tokens_details: z
    .looseObject({ reasoning_tokens: TokenCountSchema.nullish() })
    .nullish(),
});
export type OpenAiUsage = z.input<typeof OpenAiUsageSchema>;

export const OpenAiResponseSchema = z.looseObject({
  id: z.string().optional(),
  object: z.string().optional(),
  created: z.number().optional(),
  model: z.string().optional(),
  choices: z
    .array(
      z.looseObject({
        index: z.number().int().optional(),
        message: z.looseObject({
          role: z.literal('assistant').optional(),
          content: z.string().nullish(),
          tool_calls: z.array(OpenAiToolCallSchema).nullish(),
        }),
        finish_reason: z.string().nullish(),
      }),
    )
    .min(1, 'expected at least one choice'),
  usage: OpenAiUsageSchema.nullish(),
});
export type OpenAiResponse = z.input<typeof OpenAiResponseSchema>;

export const OpenAiChunkSchema = z.looseObject({
  id: z.string().optional(),
  object: z.string().optional(),
  created: z.number().optional(),
  model: z.string().optional(),
  choices: z
    .array(
      z.looseObject({
        index: z.number().int().optional(),
        delta: z
          .looseObject({
            role: z.string().optional(),
            content: z.string().nullish(),
            tool_calls: z
              .array(
                z.looseObject({
                  index: z.number().int().nonnegative(),
                  id: z.string().optional(),
                  type: z.literal('function').optional(),
                  function: z
                    .looseObject({ name: z.string().optional(), arguments: z.string().optional() })
                    .optional(),
                }),
              )
              .nullish(),
          })
          .optional(),
        finish_reason: z.string().nullish(),
      }),
    )
    .default([]),
  usage: OpenAiUsageSchema.nullish(),
  /** Some servers report a failure inside a 200 stream. */
  error: z.unknown().optional(),
});
export type OpenAiChunk = z.input<typeof OpenAiChunkSchema>;

/** The error body of a failed request: `{"error": {"message": …}}`. */
export const OpenAiErrorBodySchema = z.looseObject({
  error: z.looseObject({
    message: z.string(),
    type: z.string().nullish(),
    code: z.union([z.string(), z.number()]).nullish(),
  }),
});
export type OpenAiErrorBody = z.input<typeof OpenAiErrorBodySchema>;
