import { z } from 'zod';
import { CountSchema, JsonValueSchema, MillisSchema, NonBlankSchema } from './primitives.js';

/** Every way a run can end. Each one is terminal. */
export const TERMINAL_STATUSES = [
  'completed',
  'refused',
  'exhausted_steps',
  'exhausted_tokens',
  'exhausted_budget',
  'deadline',
  'stalled',
  'loop_detected',
  'cancelled',
  'crashed',
  'failed',
] as const;
export const TerminalStatusSchema = z.enum(TERMINAL_STATUSES);
export type TerminalStatus = z.infer<typeof TerminalStatusSchema>;

/**
 * Token usage of one or more model calls, and its cost when the price is known. `input_tokens` is
 * the whole input, cached or not (so token ceilings mean the same with caching on); the cache
 * reads and writes within it, and the reasoning tokens within `output_tokens`, are split out
 * beside it as the provider reported them, so the cost can price each at its own rate.
 */
export const UsageSchema = z.object({
  input_tokens: CountSchema,
  output_tokens: CountSchema,
  /** Input tokens read from the provider's prompt cache (part of `input_tokens`). */
  cache_read_tokens: CountSchema.optional(),
  /** Input tokens written to the provider's prompt cache (part of `input_tokens`). */
  cache_write_tokens: CountSchema.optional(),
  /** Of `cache_write_tokens`, those written with the one-hour TTL (priced higher than five minutes). */
  cache_write_1h_tokens: CountSchema.optional(),
  /** Output tokens the model spent reasoning (part of `output_tokens`). */
  reasoning_tokens: CountSchema.optional(),
  cost_usd: z.number().nonnegative().optional(),
});
export type Usage = z.infer<typeof UsageSchema>;

/** A request, made by a finished turn, to run an instruction again after a delay. */
export const ScheduleRequestSchema = z.object({
  after_ms: MillisSchema,
  instruction: NonBlankSchema,
});
export type ScheduleRequest = z.infer<typeof ScheduleRequestSchema>;

/** A request, made by a finished turn, to be woken when a resource changes (or to stop). */
export const SubscriptionRequestSchema = z.object({
  uri: z.string().min(1),
  action: z.enum(['subscribe', 'unsubscribe']).default('subscribe'),
  /** Optional condition the change must meet before the session is woken. */
  condition: z.string().optional(),
});
export type SubscriptionRequest = z.infer<typeof SubscriptionRequestSchema>;

/** How a run or a turn ended: its status, its distilled result, and the effects it asked for. */
export const OutcomeSchema = z.object({
  status: TerminalStatusSchema,
  /** The result is incomplete (a limit cut the run short); drives exit code 3. */
  partial: z.boolean().default(false),
  /** The distilled result: text, or the parsed value when an output schema applied. */
  result: JsonValueSchema.default(null),
  /** Why the run ended this way, in words, when it did not simply complete. */
  reason: z.string().optional(),
  scheduled: z.array(ScheduleRequestSchema).default([]),
  subscriptions: z.array(SubscriptionRequestSchema).default([]),
});
export type Outcome = z.infer<typeof OutcomeSchema>;

/**
 * An outcome with no effects asked for: partial unless it completed (or was refused, which is a
 * whole answer too).
 */
export function outcomeOf(
  status: TerminalStatus,
  result: unknown,
  reason: string | undefined,
): Outcome {
  return {
    status,
    partial: status !== 'completed' && status !== 'refused',
    result,
    ...(reason === undefined ? {} : { reason }),
    scheduled: [],
    subscriptions: [],
  };
}
