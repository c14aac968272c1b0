import { notTheShape, type DecodedResponse } from './dialect.js';
import type { FinishReason } from './model.js';
import { OpenAiResponseSchema } from './openai-wire.js';
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
    usage:
      usage === null || usage === undefined
        ? undefined
        : { input_tokens: usage.prompt_tokens, output_tokens: usage.completion_tokens },
    model,
  };
}
