import { z } from 'zod';
import { ReasoningEffortSchema } from '../protocol/index.js';

/**
 * The OpenAI Responses API wire shapes arbor reads and writes (`POST /responses`). The client
 * builds requests of these types and validates answers with these schemas; the fake LLM server
 * validates requests with them. Objects are loose: OpenAI adds fields all the time, and a field
 * arbor does not read must not fail a call. Errors come in the chat dialect's body shape
 * (`OpenAiErrorBodySchema`).
 */

const TextPartSchema = z.looseObject({
  type: z.enum(['input_text', 'output_text']),
  text: z.string(),
});
const MessageContentSchema = z.union([
  z.string(),
  z.array(z.looseObject({ type: z.string(), text: z.string().optional() })),
]);

/** A message item of the input: the conversation's user, assistant and developer turns. */
const MessageItemSchema = z.looseObject({
  type: z.literal('message').optional(),
  role: z.enum(['user', 'assistant', 'system', 'developer']),
  content: MessageContentSchema,
});

/** A tool call the model made, sent back as it came (the `call_id` links its output). */
export const FunctionCallItemSchema = z.looseObject({
  type: z.literal('function_call'),
  id: z.string().optional(),
  call_id: z.string().min(1),
  name: z.string().min(1),
  /** The arguments as JSON text, as the model wrote them. */
  arguments: z.string(),
  status: z.string().optional(),
});

const FunctionCallOutputItemSchema = z.looseObject({
  type: z.literal('function_call_output'),
  call_id: z.string().min(1),
  output: z.union([z.string(), z.array(TextPartSchema)]),
});

/**
 * What a reasoning model thought: its `encrypted_content` (asked for with `include`) is what lets
 * a stateless conversation (`store: false`) send it back; the id alone names an item the server
 * did not keep.
 */
export const ReasoningItemSchema = z.looseObject({
  type: z.literal('reasoning'),
  id: z.string().min(1),
  summary: z.array(z.looseObject({ type: z.string(), text: z.string() })).default([]),
  encrypted_content: z.string().nullish(),
  status: z.string().optional(),
});

/**
 * A reasoning item as arbor sends it back: checked for the fields the API needs before it goes, so
 * a trace damaged in the store is dropped rather than refused by the server. The item itself goes
 * as it came, with any field this schema does not name.
 */
export const ReplayedReasoningSchema = z.object({
  type: z.literal('reasoning'),
  id: z.string().min(1),
  summary: z.array(z.object({ type: z.literal('summary_text'), text: z.string() })),
  encrypted_content: z.string().min(1),
});
export type ReplayedReasoning = z.infer<typeof ReplayedReasoningSchema>;

const InputItemSchema = z.union([
  MessageItemSchema,
  FunctionCallItemSchema,
  FunctionCallOutputItemSchema,
  ReasoningItemSchema,
]);

const FunctionToolSchema = z.looseObject({
  type: z.literal('function'),
  name: z.string().min(1),
  description: z.string().nullish(),
  parameters: z.record(z.string(), z.unknown()).nullable(),
  strict: z.boolean().nullable(),
});

export const ResponsesRequestSchema = z.looseObject({
  model: z.string().min(1),
  instructions: z.string().nullish(),
  input: z.union([z.string(), z.array(InputItemSchema)]),
  /** arbor sends `false`: the conversation lives in its own transcript, not on OpenAI's servers. */
  store: z.boolean().nullish(),
  include: z.array(z.string()).nullish(),
  tools: z.array(FunctionToolSchema).optional(),
  tool_choice: z
    .union([
      z.enum(['auto', 'none', 'required']),
      z.looseObject({ type: z.literal('function'), name: z.string() }),
    ])
    .optional(),
  max_output_tokens: z.number().int().positive().nullish(),
  temperature: z.number().nullish(),
  top_p: z.number().nullish(),
  reasoning: z
    .looseObject({
      effort: ReasoningEffortSchema.nullish(),
      summary: z.enum(['auto', 'concise', 'detailed']).nullish(),
    })
    .nullish(),
  stream: z.boolean().nullish(),
  previous_response_id: z.string().nullish(),
});
export type ResponsesRequest = z.input<typeof ResponsesRequestSchema>;

export const OutputMessageSchema = z.looseObject({
  type: z.literal('message'),
  id: z.string().optional(),
  role: z.literal('assistant').optional(),
  content: z.array(
    z.looseObject({
      type: z.string(),
      text: z.string().optional(),
      refusal: z.string().optional(),
    }),
  ),
});

/**
 * An output item: read by its `type` with the schema of that type (a `message`, a
 * `function_call`, a `reasoning` item); other types (a web search call, …) are passed over.
 */
const OutputItemSchema = z.looseObject({ type: z.string() });

const ResponsesUsageSchema = z.looseObject({
  input_tokens: z.number().int().nonnegative(),
  input_tokens_details: z
    .looseObject({
      cached_tokens: z.number().int().nonnegative().optional(),
      cache_write_tokens: z.number().int().nonnegative().optional(),
    })
    .nullish(),
  output_tokens: z.number().int().nonnegative(),
  output_tokens_details: z
    .looseObject({ reasoning_tokens: z.number().int().nonnegative().optional() })
    .nullish(),
  total_tokens: z.number().int().nonnegative().optional(),
});
export type ResponsesUsage = z.infer<typeof ResponsesUsageSchema>;

export const ResponsesResponseSchema = z.looseObject({
  id: z.string().optional(),
  object: z.literal('response').optional(),
  created_at: z.number().optional(),
  model: z.string().optional(),
  /** `completed`, `incomplete` (see `incomplete_details`), `failed`, `in_progress`, … */
  status: z.string().optional(),
  incomplete_details: z.looseObject({ reason: z.string().optional() }).nullish(),
  error: z.looseObject({ code: z.string().nullish(), message: z.string() }).nullish(),
  output: z.array(OutputItemSchema),
  usage: ResponsesUsageSchema.nullish(),
});
export type ResponsesResponse = z.input<typeof ResponsesResponseSchema>;

/** The streamed events arbor reads; every other type is skipped (new ones appear often). */
export const ResponsesStreamEventSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('response.created'), response: ResponsesResponseSchema }),
  z.looseObject({ type: z.literal('response.in_progress'), response: ResponsesResponseSchema }),
  z.looseObject({
    type: z.literal('response.output_item.added'),
    output_index: z.number().int().nonnegative(),
    item: OutputItemSchema,
  }),
  z.looseObject({
    type: z.literal('response.output_text.delta'),
    output_index: z.number().int().nonnegative(),
    delta: z.string(),
  }),
  z.looseObject({
    type: z.literal('response.function_call_arguments.delta'),
    output_index: z.number().int().nonnegative(),
    delta: z.string(),
  }),
  z.looseObject({
    type: z.literal('response.output_item.done'),
    output_index: z.number().int().nonnegative(),
    item: OutputItemSchema,
  }),
  z.looseObject({ type: z.literal('response.completed'), response: ResponsesResponseSchema }),
  z.looseObject({ type: z.literal('response.incomplete'), response: ResponsesResponseSchema }),
  z.looseObject({ type: z.literal('response.failed'), response: ResponsesResponseSchema }),
  z.looseObject({
    type: z.literal('error'),
    code: z.string().nullish(),
    message: z.string(),
  }),
]);
export type ResponsesStreamEvent = z.input<typeof ResponsesStreamEventSchema>;
