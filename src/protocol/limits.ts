import { z } from 'zod';
import { DEFAULT_LIMITS } from './default-limits.js';
import { CountSchema, PositiveIntSchema } from './primitives.js';

/** Bounds a child runs under. The child enforces them itself; the supervisor backs them up. */
export const LimitsSchema = z.object({
  /** Model calls allowed (per turn for a warm session). */
  max_steps: PositiveIntSchema.default(DEFAULT_LIMITS.maxSteps),
  /** Input plus output tokens allowed; absent means no token cap of the child's own. */
  max_tokens: CountSchema.optional(),
  /** Wall-clock allowance from the child's start, in milliseconds; absent means none. */
  deadline_ms: PositiveIntSchema.optional(),
  /** Further levels of delegation allowed below this child (0: it may not delegate). */
  max_depth: CountSchema.default(0),
  /** Address-space cap for the child process, in bytes. */
  memory_bytes: PositiveIntSchema.optional(),
  /** CPU-time cap for the child process, in seconds. */
  cpu_seconds: PositiveIntSchema.optional(),
  /** Scheduling priority of the child process. */
  priority: z.enum(['low', 'normal', 'high']).default('normal'),
  /** The same tool with the same arguments this many times in a run ends it `loop_detected`. */
  loop_threshold: PositiveIntSchema.default(4),
  /** The same answer this many turns running ends a session `stalled`. */
  stall_turns: PositiveIntSchema.default(3),
});
export type Limits = z.infer<typeof LimitsSchema>;

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;

/** The correlation block a child stamps on its logs, events and tool calls. */
export const TelemetrySchema = z.object({
  run_id: z.string().min(1),
  /** The node's id within the run. */
  node_id: z.string().min(1),
  /** The node's path in the tree: `0`, `0.2`, `0.2.1`. */
  node_path: z.string().regex(/^0(\.\d+)*$/, 'expected a tree path such as `0` or `0.2.1`'),
  /** W3C trace context of the parent span, propagated to model and MCP calls. */
  traceparent: z.string().optional(),
  log_level: z.enum(LOG_LEVELS).default('info'),
  /** Log message and tool content, not only their sizes. Off by default; inherited. */
  log_content: z.boolean().default(false),
});
export type Telemetry = z.infer<typeof TelemetrySchema>;
