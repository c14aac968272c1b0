import { ArborError, type ReasoningTrace, type Sampling } from '../protocol/index.js';
import {
  RedactedThinkingBlockSchema,
  ThinkingBlockSchema,
  type AnthropicRedactedThinkingBlock,
  type AnthropicRequest,
  type AnthropicThinkingBlock,
} from './anthropic-wire.js';
import type { ModelRequest } from './model.js';

/** The dialect name a reasoning trace of Anthropic thinking blocks carries. */
export const ANTHROPIC_REASONING = 'anthropic';

/** `max_tokens` is required by the messages API; this is used when sampling sets no bound. */
const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;

/** The request fields extended thinking decides: the output cap, `thinking`, what sampling stays. */
export interface ThinkingParams {
  max_tokens: number;
  thinking?: NonNullable<AnthropicRequest['thinking']>;
  /** Whether `temperature` may be sent (the API refuses it, and `top_k`, with thinking on). */
  allowsTemperature: boolean;
  /** Whether `top_p` may be sent: with thinking, only between 0.95 and 1. */
  allowsTopP: boolean;
}

/**
 * The thinking settings of one call. With `thinking_budget_tokens` set, thinking is on with that
 * budget; the API requires `max_tokens` above the budget (thinking counts as output), so when no
 * `max_output_tokens` is set the cap is the budget plus the usual 4096 tokens of answer, and a cap
 * set at or below the budget is refused here, naming both, rather than raised behind the
 * operator's back. `temperature` is left out with thinking (the API refuses it), and `top_p`
 * unless it is within 0.95–1, as Anthropic documents; a forced tool choice is refused here too.
 */
export function thinkingParams(
  sampling: Sampling,
  request: ModelRequest,
  model?: string,
): ThinkingParams {
  const budget = sampling.thinking_budget_tokens;
  if (budget === undefined || (model !== undefined && lostTurnThinking(request, model))) {
    return {
      max_tokens: sampling.max_output_tokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS,
      allowsTemperature: true,
      allowsTopP: true,
    };
  }
  const cap = sampling.max_output_tokens;
  if (cap !== undefined && cap <= budget) {
    throw new ArborError(
      'config',
      `Expected \`max_output_tokens\` (${cap} tokens) to be greater than \`thinking_budget_tokens\` (${budget} tokens): Anthropic counts thinking as output. Raise the cap or lower the budget.`,
      { details: { max_output_tokens: cap, thinking_budget_tokens: budget } },
    );
  }
  if (request.toolChoice === 'required') {
    throw new ArborError(
      'config',
      'Expected tool choice `auto` or `none` with extended thinking (`thinking_budget_tokens` is set), got `required`: Anthropic refuses a forced tool use while the model thinks.',
    );
  }
  const topP = sampling.top_p;
  return {
    max_tokens: cap ?? budget + ANTHROPIC_DEFAULT_MAX_TOKENS,
    thinking: { type: 'enabled', budget_tokens: budget },
    allowsTemperature: false,
    allowsTopP: topP !== undefined && topP >= 0.95,
  };
}

/**
 * Whether the conversation is inside a tool-use turn whose thinking cannot go back to this model:
 * the last assistant message called tools and its reasoning was another model's (a failover, a
 * degrade, a swap or a resume onto another model dropped it). With thinking on, Anthropic refuses
 * such a request ("Expected thinking or redacted_thinking"), so that call goes without thinking,
 * as the API's own message advises; thinking is back from the next turn's first call.
 */
function lostTurnThinking(request: ModelRequest, model: string): boolean {
  const last = request.messages.findLast((message) => message.role === 'assistant');
  if (last?.role !== 'assistant' || last.tool_calls.length === 0) return false;
  return reasoningBlocks(last.reasoning, model).length === 0;
}

/**
 * The thinking blocks an assistant message goes back with: its reasoning's blocks, verbatim and
 * in order, when they are Anthropic's and came from the model of this call; none otherwise (the
 * message was answered by another model before a failover, a degrade, a swap or a fork, and
 * Anthropic verifies a signature only against the model that made it).
 */
export function reasoningBlocks(
  reasoning: ReasoningTrace | undefined,
  model: string,
): (AnthropicThinkingBlock | AnthropicRedactedThinkingBlock)[] {
  if (reasoning?.dialect !== ANTHROPIC_REASONING || reasoning.model !== model) return [];
  // The objects themselves, not parsed copies: the API verifies them as they were sent.
  return reasoning.blocks.filter(isThinkingBlock);
}

function isThinkingBlock(
  block: unknown,
): block is AnthropicThinkingBlock | AnthropicRedactedThinkingBlock {
  return (
    ThinkingBlockSchema.safeParse(block).success ||
    RedactedThinkingBlockSchema.safeParse(block).success
  );
}
