import { z } from 'zod';
import { CountSchema, MillisSchema } from './primitives.js';

/**
 * A provider's rate limits as a child reports them to its supervisor (`intel_limits` frames) and
 * names the endpoint it is about to call (`budget_request.endpoint`). Never a URL or a credential:
 * an endpoint is its index in the run's endpoint list and a `scope`, a hash of where it points.
 */

/** The hash naming an endpoint's provider account and model: 16 lowercase hex digits. */
export const EndpointScopeSchema = z
  .string()
  .regex(/^[0-9a-f]{16}$/, { error: 'expected 16 lowercase hex digits' });

/** Which of the provider's limits: requests, tokens, or (Anthropic) input or output tokens. */
export const RateLimitNameSchema = z.enum(['requests', 'tokens', 'input_tokens', 'output_tokens']);
export type RateLimitName = z.infer<typeof RateLimitNameSchema>;

/** One limit: its size, what is left of it, and when it is whole again (ms after the report). */
export const RateLimitAxisSchema = z.object({
  limit: CountSchema.optional(),
  remaining: CountSchema,
  reset_ms: MillisSchema.optional(),
});
export type RateLimitAxis = z.infer<typeof RateLimitAxisSchema>;

/** The endpoint a call is about to go to. */
export const EndpointRefSchema = z.object({ index: CountSchema, scope: EndpointScopeSchema });
export type EndpointRef = z.infer<typeof EndpointRefSchema>;

/**
 * What one response said of the provider's limits (success or 429), sent once per response that
 * carried rate-limit headers. `reset_ms` is counted from when the child sent the frame, so the
 * supervisor places it on its own clock.
 */
export const IntelLimitsFrameSchema = z.object({
  type: z.literal('intel_limits'),
  endpoint: EndpointRefSchema,
  requests: RateLimitAxisSchema.optional(),
  tokens: RateLimitAxisSchema.optional(),
  input_tokens: RateLimitAxisSchema.optional(),
  output_tokens: RateLimitAxisSchema.optional(),
});
export type IntelLimitsFrame = z.infer<typeof IntelLimitsFrameSchema>;
