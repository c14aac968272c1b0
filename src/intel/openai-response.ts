import { notTheShape, type DecodedResponse, type DecodedUsage } from './dialect.js';
import type { FinishReason } from './model.js';
import { OpenAiResponseSchema, type OpenAiUsage } from './openai-wire.js';
import { toolCallFromText } from './tool-call-args.js';
import type { ToolNames } from './wire-names.js';

export const OPENAI_RESPONSE_NAME = 'an OpenAI chat completion';

const FINISH_REASONS: Readonly<Record<string, FinishReason>> = {
  stop: 'stop',
  tool_calls: 'tool_calls',
  function_call: 'tool_calls',
  length: 'length',
  content_filter: 'content_filter',
};

export function openAiFinishReason(reason: string | null | undefined): FinishReason {
  if (reason === null || reason === undefined) return 'other';
  return Object.hasOwn(FINISH_REASONS, reason) ? (FINISH_REASONS[reason] ?? 'other') : 'other';
}

/**
 * Reads a chat completion's usage. `prompt_tokens` already counts the cached prefix, so it stays
 * the input total and the cached part is split out beside it; likewise the reasoning tokens within
 * `completion_tokens`. A split count is kept only when it is above zero: OpenAI reports zeros for
 * every call (and other servers nothing at all), which say nothing a view should show.
 */
export function decodeOpenAiUsage(usage: OpenAiUsage | null | undefined): DecodedUsage | undefined {
  if (usage === null || usage === undefined) return undefined;
  const cached = usage.prompt_tokens_details?.cached_tokens ?? 0;
  const reasoning = usage.completion_tokens_details?.reasoning_tokens ?? 0;
  return {
    input_tokens: usage.prompt_tokens,
    output_tokens: usage.completion_tokens,
    ...(cached > 0 ? { cache_read_tokens: cached } : {}),
    ...(reasoning > 0 ? { reasoning_tokens: reasoning } : {}),
  };
}

/** Reads an unstreamed chat completion. Only the first choice counts: arbor never asks for more. */
export function decodeOpenAiResponse(body: unknown, names: ToolNames): DecodedResponse {
  const parsed = OpenAiResponseSchema.safeParse(body, { reportInput: true });
  if (!parsed.success) throw notTheShape(OPENAI_RESPONSE_NAME, parsed.error);
  const { choices, usage, model } = parsed.data;
  const choice = choices[0];
  const message = choice?.message;
  const calls = message?.tool_calls ?? [];
  return {
    text: message?.content ?? '',
    toolCalls: calls.map((call) =>
      toolCallFromText(call.id, names.fromWire(call.function.name), call.function.arguments),
    ),
    finishReason: openAiFinishReason(choice?.finish_reason),
    usage: decodeOpenAiUsage(usage),
    model,
  };
}
