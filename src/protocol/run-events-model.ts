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
      /** The digest of the system prompt the call sent (the node's `model.system` event holds it). */
      systemDigest: z.string().optional(),
      /** The answer was served from a recorded run (`arbor replay`): no endpoint was called. */
      replayed: z.boolean().optional(),
    }),
  /**
   * The tools a node's model calls offer (names, descriptions, JSON schemas, `finish` included),
   * reported once per node and again when the set changes; its `model.call` events name it by
   * `digest`. A string when the set was cut to the event bound (the event has `truncated: true`).
   */
  'model.tools': () =>
    z.object({ digest: z.string(), tools: z.union([z.array(ToolDefSchema), z.string()]) }),
  /**
   * The system prompt a node's model calls send, reported once per node and again when it
   * changes; its `model.call` events name it by `digest`. A replay compares a node's prompt with it.
   */
  'model.system': () => z.object({ digest: z.string(), text: z.string() }),
  /**
   * A replayed node's request differs from the recorded one before its model call `call` (from 1;
   * `step` is that call's step in its turn): what differed (`system`, `tools`, `model`, or a
   * transcript difference as `arbor runs diff` names them), the recorded side and the replay's
   * (a few lines each), and whether the node goes on live from there (`--continue-live`, a fork).
   */
  'replay.divergence': () =>
    z.object({
      call: z.number(),
      step: z.number(),
      what: z.string(),
      recorded: z.string().nullable(),
      replayed: z.string().nullable(),
      live: z.boolean(),
    }),
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
