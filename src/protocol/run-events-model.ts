import { z } from 'zod';
import { SamplingSchema } from './intelligence.js';
import { ToolDefSchema } from './messages.js';

/**
 * The fields of the events of a node's model calls, tool calls and usage (see `run-events.ts`,
 * which holds them in the one closed union of every event).
 */
export const MODEL_EVENT_MAKERS = {
  /** One model call, once its answer is complete. */
  'model.call': () =>
    z.object({
      step: z.number(),
      endpoint: z.number(),
      model: z.string(),
      ms: z.number(),
      inputTokens: z.number(),
      outputTokens: z.number(),
      finishReason: z.string(),
      toolCalls: z.number(),
      text: z.string().optional(),
      textChars: z.number().optional(),
      /** The model the call asked for when the loop chose it (a budget degrade); absent: the endpoint's. */
      requestModel: z.string().optional(),
      /** Of `inputTokens`, those read from and written to the provider's prompt cache. */
      cacheReadTokens: z.number().optional(),
      cacheWriteTokens: z.number().optional(),
      /** Of `outputTokens`, those the model spent reasoning. */
      reasoningTokens: z.number().optional(),
      /**
       * What a replay needs to ask the same again: the digest of the tools the call offered (the
       * node's `model.tools` event with this digest holds them), the sampling it was sent with (the
       * config's under the endpoint's; absent: none set) and the model it named, when that is not
       * `model` (a server that answered with a dated snapshot of an alias). Absent from an older child.
       */
      toolsDigest: z.string().optional(),
      sampling: SamplingSchema.optional(),
      modelAsked: z.string().optional(),
    }),
  /**
   * The tools a node's model calls offer (names, descriptions, JSON schemas, `finish` included),
   * reported once per node and again when the set changes; its `model.call` events name it by
   * `digest`. A string when the set was cut to the event bound (the event has `truncated: true`).
   */
  'model.tools': () =>
    z.object({ digest: z.string(), tools: z.union([z.array(ToolDefSchema), z.string()]) }),
  /**
   * An attempt at a model endpoint failed (it may be retried, or failed over), after `ms`
   * milliseconds (absent from an older child).
   */
  'model.error': () =>
    z.object({ endpoint: z.number(), kind: z.string(), ms: z.number().optional() }),
  /** A piece of a node's answer as the model writes it. */
  'text.delta': () => z.object({ step: z.number(), text: z.string() }),
  /** The stream broke off and is being made again: drop this node's text since its last step. */
  'text.reset': () => z.object({ step: z.number(), reason: z.string() }),
  /**
   * `args` only when content is logged; a string when the child cut it to the event bound
   * (the event then has `truncated: true`).
   */
  'tool.call': () =>
    z.object({
      id: z.string(),
      name: z.string(),
      args: z.union([z.record(z.string(), z.unknown()), z.string()]).optional(),
    }),
  'tool.result': () =>
    z.object({
      id: z.string(),
      name: z.string(),
      isError: z.boolean(),
      /** arbor refused the call before the tool ran; absent: it ran. */
      refused: z.boolean().optional(),
      ms: z.number(),
      content: z.unknown().optional(),
    }),
  /**
   * Tokens (and cost) of one model call of a node: the totals, and the cache reads, cache writes
   * (the one-hour ones among them) and reasoning tokens within them where the provider reported them.
   */
  usage: () =>
    z.object({
      inputTokens: z.number(),
      outputTokens: z.number(),
      cacheReadTokens: z.number().optional(),
      cacheWriteTokens: z.number().optional(),
      cacheWrite1hTokens: z.number().optional(),
      reasoningTokens: z.number().optional(),
      costUsd: z.number().optional(),
    }),
} as const;
