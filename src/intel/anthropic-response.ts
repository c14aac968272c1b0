import type { ReasoningTrace } from '../protocol/index.js';
import { ANTHROPIC_REASONING } from './anthropic-thinking.js';
import {
  AnthropicResponseSchema,
  THINKING_BLOCK_TYPES,
  type AnthropicTextBlock,
  type AnthropicToolUseBlock,
  type AnthropicUsage,
} from './anthropic-wire.js';
import { notTheShape, type DecodedResponse, type DecodedUsage } from './dialect.js';
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
 * Usage as arbor keeps it. `input_tokens` is the whole input, as budgets see it: the API counts
 * cache writes and reads apart from its own `input_tokens` (the uncached rest), so they are added
 * back; they are also split out as the API reported them, the one-hour writes on their own (a
 * zero count is left out).
 * `undefined` until the output count is known.
 */
export function anthropicUsage(usage: AnthropicUsage | undefined): DecodedUsage | undefined {
  if (usage?.output_tokens === undefined) return undefined;
  const reads = usage.cache_read_input_tokens ?? 0;
  const writes = usage.cache_creation_input_tokens ?? 0;
  const writes1h = usage.cache_creation?.ephemeral_1h_input_tokens ?? 0;
  // The API reports zeros when nothing was cached; a split is kept only where there is one.
  return {
    input_tokens: (usage.input_tokens ?? 0) + writes + reads,
    output_tokens: usage.output_tokens,
    ...(reads === 0 ? {} : { cache_read_tokens: reads }),
    ...(writes === 0 ? {} : { cache_write_tokens: writes }),
    ...(writes1h === 0 ? {} : { cache_write_1h_tokens: writes1h }),
  };
}

/**
 * The reasoning trace of an answer's thinking blocks, in order, or `undefined` when it has none.
 * `model` is the server's; the client pins it to the model the call asked for.
 */
export function anthropicReasoning(
  blocks: readonly unknown[],
  model: string | undefined,
): ReasoningTrace | undefined {
  if (blocks.length === 0) return undefined;
  return { dialect: ANTHROPIC_REASONING, model: model ?? 'unknown', blocks: [...blocks] };
}

/**
 * Reads an unstreamed message: text blocks joined, `tool_use` blocks as tool calls, thinking and
 * redacted thinking blocks kept verbatim (the objects of the body itself, not parsed copies).
 */
export function decodeAnthropicResponse(body: unknown, names: ToolNames): DecodedResponse {
  const parsed = AnthropicResponseSchema.safeParse(body, { reportInput: true });
  if (!parsed.success) throw notTheShape(ANTHROPIC_RESPONSE_NAME, parsed.error);
  const { content, usage, model, stop_reason } = parsed.data;
  const raw = (body as { content: readonly unknown[] }).content;
  let text = '';
  const toolCalls: ModelToolCall[] = [];
  const thinking: unknown[] = [];
  content.forEach((block, index) => {
    // The schema admits a block of a known type only in that type's shape (see `OtherBlockSchema`).
    if (block.type === 'text') text += (block as AnthropicTextBlock).text;
    if (block.type === 'tool_use') {
      const use = block as AnthropicToolUseBlock;
      toolCalls.push({ id: use.id, name: names.fromWire(use.name), args: use.input });
    }
    if (THINKING_BLOCK_TYPES.includes(block.type)) thinking.push(raw[index]);
  });
  const reasoning = anthropicReasoning(thinking, model);
  return {
    text,
    toolCalls,
    finishReason: anthropicFinishReason(stop_reason),
    usage: anthropicUsage(usage),
    model,
    ...(reasoning === undefined ? {} : { reasoning }),
  };
}
