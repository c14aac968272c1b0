import { z } from 'zod';
import { IntelActiveSchema } from './intelligence.js';
import { CountSchema, JsonObjectSchema, JsonValueSchema, PositiveIntSchema } from './primitives.js';
import { OutcomeSchema, UsageSchema } from './outcome.js';
import { EndpointRefSchema, IntelLimitsFrameSchema } from './rate-limits.js';
import { TurnResultSchema } from './turn.js';
import { PROTOCOL_VERSION } from './version.js';

/**
 * Agent frames: child → supervisor, on the child's stdout. Stdout carries nothing else.
 */

/** Setup is done (intelligence and granted MCP servers connected); the child is about to run. */
export const ReadyFrameSchema = z.object({
  type: z.literal('ready'),
  protocol: z.literal(PROTOCOL_VERSION).default(PROTOCOL_VERSION),
});

/** The answer to `ping`. */
export const PongFrameSchema = z.object({ type: z.literal('pong'), seq: CountSchema });

/** Progress (`loop.step`, `tool.call`, …). Resets the supervisor's no-progress watchdog. */
export const EventFrameSchema = z.object({
  type: z.literal('event'),
  event: z.string().min(1),
  fields: JsonObjectSchema.default({}),
});

/**
 * Usage of the model calls made since the last `usage` frame (arbor's own children send one per
 * call), as the provider reported it. The supervisor prices it (`src/pricing/`) from `model` and
 * `endpoint`; a `cost_usd` the sender gives (an A2A peer's own price) is kept as it is.
 */
export const UsageFrameSchema = z
  .object({
    type: z.literal('usage'),
    /** The model that answered, as the server named it (absent from older children). */
    model: z.string().min(1).optional(),
    /** The index of the endpoint that answered, in the node's intelligence. */
    endpoint: CountSchema.optional(),
    /** The model the call named (a budget degrade's cheaper model), when it is not `model`. */
    model_asked: z.string().min(1).optional(),
  })
  .extend(UsageSchema.shape);

/** A warm session finished one turn and stays alive for the next. Not terminal. */
export const TurnFrameSchema = z.object({ type: z.literal('turn'), outcome: OutcomeSchema });

/** Terminal: the distilled result and final status. Sent exactly once. */
export const ResultFrameSchema = z.object({ type: z.literal('result'), outcome: OutcomeSchema });

/** Terminal: a fatal infrastructure failure (intelligence or a required server unreachable). */
export const FailedFrameSchema = z.object({
  type: z.literal('failed'),
  error: z.string().min(1),
  /** Machine-readable class of the failure, from the error code table. */
  code: z.string().optional(),
});

/** A human gate opened: `payload` is what the human is asked to look at. Not terminal. */
export const GateFrameSchema = z.object({
  type: z.literal('gate'),
  node: z.string().min(1),
  payload: JsonValueSchema.default(null),
});

/** A gate resolved: by a `reply`, through a `uri`, or by `timeout`. Not terminal. */
export const GateClosedFrameSchema = z.object({
  type: z.literal('gate_closed'),
  node: z.string().min(1),
  via: z.enum(['reply', 'uri', 'timeout']),
});

/**
 * Intelligence reachability, sent only on a change: when every endpoint becomes unusable and when
 * one recovers. Carries an endpoint index and transport, never a URL or a credential.
 */
export const IntelHealthFrameSchema = z.object({
  type: z.literal('intel_health'),
  all_down: z.boolean(),
  active: IntelActiveSchema.optional(),
});

/** Ask the supervisor to run a tool it serves or gates; answered by `tool_result`. */
export const ToolRequestFrameSchema = z.object({
  type: z.literal('tool_request'),
  id: PositiveIntSchema,
  name: z.string().min(1),
  args: JsonObjectSchema.default({}),
});

/**
 * Ask for budget before a model call, with an estimate in tokens; answered by `budget_grant`.
 * `endpoint`: the endpoint the call will try first, so admission can weigh its provider's limits.
 */
export const BudgetRequestFrameSchema = z.object({
  type: z.literal('budget_request'),
  id: PositiveIntSchema,
  estimate: CountSchema,
  endpoint: EndpointRefSchema.optional(),
});

/** A turn worker finished its turn. Terminal for that worker. */
export const TurnDoneFrameSchema = z.object({
  type: z.literal('turn_done'),
  turn: TurnResultSchema,
});

export const AgentFrameSchema = z.discriminatedUnion('type', [
  ReadyFrameSchema,
  PongFrameSchema,
  EventFrameSchema,
  UsageFrameSchema,
  TurnFrameSchema,
  ResultFrameSchema,
  FailedFrameSchema,
  GateFrameSchema,
  GateClosedFrameSchema,
  IntelHealthFrameSchema,
  IntelLimitsFrameSchema,
  ToolRequestFrameSchema,
  BudgetRequestFrameSchema,
  TurnDoneFrameSchema,
]);
export type AgentFrame = z.infer<typeof AgentFrameSchema>;
export type AgentFrameType = AgentFrame['type'];
