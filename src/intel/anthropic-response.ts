import {
  AnthropicResponseSchema,
  type AnthropicTextBlock,
  type AnthropicToolUseBlock,
  type AnthropicUsage,
} from './anthropic-wire.js';
import { notTheShape, type DecodedResponse } from './dialect.js';
import type { FinishReason, ModelToolCall } from './model.js';
import type { ToolNames } from './wire-names.js';

export const ANTHROPIC_RESPONSE_NAME = 'an Anthropic message';

const FINISH_REASONS: Readonly<Record<string, FinishReason>> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  tool_use: 'tool_calls',
  max_tokens: 'length',
  refusal: 'content_filter',
};

export function anthropicFinishReason(reason: string | null | undefined): FinishReason {
  if (reason === null || reason === undefined) return 'other';
  return Object.hasOwn(FINISH_REASONS, reason) ? (FINISH_REASONS[reason] ?? 'other') : 'other';
}

/**
 * Input tokens as budgets should see them: cache writes and reads are input too, and the API
 * counts them apart from `input_tokens`.
 */
export function anthropicInputTokens(usage: AnthropicUsage): number {
  return (
    (usage.input_tokens ?? 0) +
    (usage.cache_creation_input_tokens ?? 0) +
    (usage.cache_read_input_tokens ?? 0)
  );
}

/** Reads an unstreamed message: text blocks joined, `tool_use` blocks as tool calls. */
export function decodeAnthropicResponse(body: unknown, names: ToolNames): DecodedResponse {
  const parsed = AnthropicResponseSchema.safeParse(body, { reportInput: true });
  if (!parsed.success) throw notTheShape(ANTHROPIC_RESPONSE_NAME, parsed.error);
  const { content, usage, model, stop_reason } = parsed.data;
  let text = '';
  const toolCalls: ModelToolCall[] = [];
  for (const block of content) {
    // The schema admits a block of a known type only in that type's shape (see `OtherBlockSchema`).
    if (block.type === 'text') text += (block as AnthropicTextBlock).text;
    if (block.type === 'tool_use') {
      const use = block as AnthropicToolUseBlock;
      toolCalls.push({ id: use.id, name: names.fromWire(use.name), args: use.input });
    }
  }
  return {
    text,
    toolCalls,
    finishReason: anthropicFinishReason(stop_reason),
    usage:
      usage?.output_tokens === undefined
        ? undefined
        : { input_tokens: anthropicInputTokens(usage), output_tokens: usage.output_tokens },
    model,
  };
}
