import type { z } from 'zod';
import { OpenAiRequestSchema, type OpenAiErrorBody, type OpenAiUsage } from '../../intel/index.js';
import type { ReasoningEffort } from '../../protocol/index.js';
import type { OpenAiPromptCache } from './openai-prompt-cache.js';
import type { Step } from './playbook.js';
import type { ScriptedAnswer } from './scripted-answer.js';

/**
 * What OpenAI's chat completions do that the fake plays as they are documented (docs/testing.md,
 * "OpenAI's rules"): reasoning models refuse `max_tokens` and sampling they do not take, report
 * the tokens they spent reasoning, and prompts report the prefix read from the prompt cache.
 */

type OpenAiRequest = z.output<typeof OpenAiRequestSchema>;

/**
 * OpenAI's reasoning models: the o1, o3 and o4 series and GPT-5 (`o3-mini`, `o4-mini-2025-04-16`,
 * `gpt-5`, `gpt-5.1-codex`), but not the chat variants without reasoning (`gpt-5-chat-latest`).
 */
export function isReasoningModel(model: string): boolean {
  return /^(o1|o3|o4|gpt-5)([-.]|$)/.test(model) && !model.includes('-chat');
}

/** GPT-5.1 and later: they reason at `none` unless asked, and then take temperature and top_p. */
function isGpt5Point(model: string): boolean {
  return /^gpt-5\.\d/.test(model);
}

/** The models OpenAI caches prompts for: GPT-4o and newer. */
export function isCachingModel(model: string): boolean {
  return /^(gpt-4o|chatgpt-4o|gpt-4\.1|gpt-5|o1|o3|o4)([-.]|$)/.test(model);
}

function refusal(param: string, code: string, message: string): OpenAiErrorBody {
  return { error: { message, type: 'invalid_request_error', param, code } };
}

/**
 * The 400 body OpenAI answers a request with that its model refuses, or `undefined`. A reasoning
 * model refuses `max_tokens` (the cap goes in `max_completion_tokens`), a `temperature` or
 * `top_p` other than the default 1 — except GPT-5.1 and later at reasoning effort `none`.
 * `body` has passed `OpenAiRequestSchema` already.
 */
export function openAiRefusal(body: unknown): OpenAiErrorBody | undefined {
  const request = OpenAiRequestSchema.parse(body);
  if (!isReasoningModel(request.model)) return undefined;
  if (request.max_tokens !== undefined) {
    return refusal(
      'max_tokens',
      'unsupported_parameter',
      "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
    );
  }
  if (isGpt5Point(request.model) && effortOf(request) === 'none') return undefined;
  if (request.temperature !== undefined && request.temperature !== 1) {
    return refusal(
      'temperature',
      'unsupported_value',
      `Unsupported value: 'temperature' does not support ${String(request.temperature)} with this model. Only the default (1) value is supported.`,
    );
  }
  if (request.top_p !== undefined && request.top_p !== 1) {
    return refusal(
      'top_p',
      'unsupported_parameter',
      "Unsupported parameter: 'top_p' is not supported with this model.",
    );
  }
  return undefined;
}

function effortOf(request: OpenAiRequest): ReasoningEffort {
  return request.reasoning_effort ?? (isGpt5Point(request.model) ? 'none' : 'medium');
}

/** The reasoning tokens a reasoning model reports when the step does not say: by effort. */
const DEFAULT_REASONING_TOKENS: Readonly<Record<ReasoningEffort, number>> = {
  none: 0,
  minimal: 8,
  low: 64,
  medium: 192,
  high: 512,
  xhigh: 1024,
};

/**
 * The prompt as the cache sees it, in the order it reaches the model: the tools, then the
 * messages, each as JSON. A conversation that grows by appending messages keeps its prefix.
 */
function promptText(request: OpenAiRequest): string {
  const parts = [...(request.tools ?? []), ...request.messages].map((part) => JSON.stringify(part));
  return parts.join('\n');
}

/**
 * The usage of one answer as OpenAI reports it, details included. `completion_tokens` holds the
 * reasoning tokens as well as the answer's: the step's `reasoning_tokens` (any model), or for a
 * reasoning model the default of its effort. A step's scripted `usage` is reported as written,
 * the reasoning within its `output_tokens`; otherwise the reasoning is added to the estimate.
 * The cached prefix is read (and the prompt remembered) for the models OpenAI caches.
 */
export function openAiUsage(
  answer: ScriptedAnswer,
  step: Step,
  body: unknown,
  cache: OpenAiPromptCache,
): OpenAiUsage {
  const request = OpenAiRequestSchema.parse(body);
  const { input_tokens: prompt, output_tokens: output } = answer.usage;
  const reasoning =
    step.reasoning_tokens ??
    (isReasoningModel(request.model) ? DEFAULT_REASONING_TOKENS[effortOf(request)] : 0);
  const isScripted = step.usage !== undefined;
  const completion = isScripted ? output : output + reasoning;
  const cached = isCachingModel(request.model)
    ? cache.read(request.model, promptText(request), prompt)
    : 0;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: cached, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: Math.min(reasoning, completion),
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}
