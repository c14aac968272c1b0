import { z } from 'zod';
import { TaintSchema } from './safety.js';
import { IntelConfigSchema, SwapPolicySchema } from './intelligence.js';
import { CountSchema, JsonValueSchema, MillisSchema, PositiveIntSchema } from './primitives.js';
import { SpawnPayloadSchema } from './payload.js';
import { PROTOCOL_VERSION } from './version.js';

/**
 * Control frames: supervisor → child, on the child's stdin. The first frame is always `spawn`.
 */

/** The first frame down: the protocol version and the minted payload. */
export const SpawnFrameSchema = z.object({
  type: z.literal('spawn'),
  protocol: z.literal(PROTOCOL_VERSION),
  payload: SpawnPayloadSchema,
});

/** Liveness probe; the child answers `pong` with the same `seq` at once, even mid model call. */
export const PingFrameSchema = z.object({ type: z.literal('ping'), seq: CountSchema });

/** Hold the loop at the next turn boundary. Control keeps flowing; `cancel` beats `pause`. */
export const PauseFrameSchema = z.object({ type: z.literal('pause') });

/** Lift a `pause`. */
export const ResumeFrameSchema = z.object({ type: z.literal('resume') });

/** Wind down at the next boundary; the supervisor escalates if the child does not. */
export const CancelFrameSchema = z.object({
  type: z.literal('cancel'),
  reason: z.string().default('cancelled'),
});

/** The next message for a warm session (or a human's answer to a gate). */
export const InjectFrameSchema = z.object({ type: z.literal('inject'), message: z.string() });

/** Replace the endpoint list and model at the next turn boundary, with fresh breakers. */
export const SwapIntelFrameSchema = z.object({
  type: z.literal('swap_intel'),
  intelligence: IntelConfigSchema,
  policy: SwapPolicySchema.default('finish-on-old'),
});

/** The answer to a `tool_request` with the same id. */
export const ToolResultFrameSchema = z.object({
  type: z.literal('tool_result'),
  id: PositiveIntSchema,
  result: JsonValueSchema.default(null),
  is_error: z.boolean().default(false),
  /** The supervisor refused the call (policy, approval): the text is its own, not the tool's. */
  refused: z.boolean().optional(),
  /**
   * What the answer carries: the result of a sub-agent that had read untrusted content
   * (`exposed`) or a sensitive source (`sensitive`) passes that on to whoever reads it.
   */
  taint: TaintSchema.optional(),
});

/**
 * The answer to a `budget_request` with the same id: `ok` to go (with `model` set, use that
 * cheaper model), or not ok with `wait_ms` (ask again later) or `reason` (refused).
 */
export const BudgetGrantFrameSchema = z.object({
  type: z.literal('budget_grant'),
  id: PositiveIntSchema,
  ok: z.boolean(),
  wait_ms: MillisSchema.optional(),
  model: z.string().min(1).optional(),
  reason: z.string().optional(),
  /**
   * With a refusal: which limit is spent, so the child ends with the matching status — `tokens`
   * (`exhausted_tokens`), `usd` or `window` (`exhausted_budget`), `steps` (`exhausted_steps`),
   * `time` (`deadline`).
   */
  limit: z.enum(['tokens', 'usd', 'steps', 'time', 'window']).optional(),
});

export const ControlFrameSchema = z.discriminatedUnion('type', [
  SpawnFrameSchema,
  PingFrameSchema,
  PauseFrameSchema,
  ResumeFrameSchema,
  CancelFrameSchema,
  InjectFrameSchema,
  SwapIntelFrameSchema,
  ToolResultFrameSchema,
  BudgetGrantFrameSchema,
]);
export type ControlFrame = z.infer<typeof ControlFrameSchema>;
export type ControlFrameType = ControlFrame['type'];
