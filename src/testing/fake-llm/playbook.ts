import { z } from 'zod';
import { CountSchema, DialectSchema, JsonObjectSchema } from '../../protocol/index.js';
import { RateLimitSchema } from './rate-limit.js';

/**
 * The fake LLM's playbook format. Every object is strict, so a misspelt field is an error that
 * names it rather than a silently ignored line.
 */

const FAULT_KINDS = ['malformed', 'reset', 'hang', 'cut'] as const;

/**
 * How a request fails instead of being answered. Written as `{"status": 503, "body"?,
 * "retry_after"?}` or `{"kind": "malformed" | "reset" | "hang" | "cut"}`; read as a union tagged by
 * `kind`. `cut` streams the first half of the scripted answer and then drops the connection (a
 * request that does not stream is reset).
 */
export const FaultSchema = z
  .strictObject({
    status: z.number().int().min(400).max(599).optional(),
    body: z.string().optional(),
    /** Seconds, sent as the `Retry-After` header. */
    retry_after: CountSchema.optional(),
    kind: z.enum(FAULT_KINDS).optional(),
  })
  .superRefine((fault, ctx) => {
    if ((fault.status === undefined) === (fault.kind === undefined)) {
      ctx.addIssue({
        code: 'custom',
        message:
          'expected either `status` (an HTTP error, 400–599) or `kind` (`malformed`, `reset`, `hang` or `cut`)',
      });
    } else if (fault.kind !== undefined && (fault.body ?? fault.retry_after) !== undefined) {
      ctx.addIssue({ code: 'custom', message: '`body` and `retry_after` go with `status` only' });
    }
  })
  .transform((fault): Fault => {
    if (fault.kind !== undefined) return { kind: fault.kind };
    return {
      kind: 'status',
      status: fault.status ?? 500,
      ...(fault.body === undefined ? {} : { body: fault.body }),
      ...(fault.retry_after === undefined ? {} : { retry_after: fault.retry_after }),
    };
  });
export type Fault =
  | { kind: 'status'; status: number; body?: string; retry_after?: number }
  | { kind: (typeof FAULT_KINDS)[number] };

export const ScriptedToolCallSchema = z.strictObject({
  /** The tool's arbor name (`subagent.run`); it goes on the wire as `subagent_run`. */
  name: z.string().min(1),
  args: JsonObjectSchema.default({}),
  /** Generated (`call_1`, `call_2`, …) when absent. */
  id: z.string().min(1).optional(),
});

export const StepSchema = z
  .strictObject({
    text: z.string().optional(),
    tool_calls: z.array(ScriptedToolCallSchema).optional(),
    usage: z.strictObject({ input_tokens: CountSchema, output_tokens: CountSchema }).optional(),
    /**
     * OpenAI dialect: the reasoning tokens reported (`completion_tokens_details.reasoning_tokens`),
     * part of the output tokens. Default: by reasoning effort for a reasoning model, else 0.
     */
    reasoning_tokens: CountSchema.optional(),
    /**
     * Anthropic, when the request enables extended thinking: the text of the signed thinking block
     * the answer opens with (default: a line naming the step).
     */
    thinking: z.string().optional(),
    delay_ms: CountSchema.optional(),
    /**
     * Stream the text in pieces of this many characters, not a word at a time: a word (a key the
     * model echoes) then spans several deltas.
     */
    chunk_chars: z.number().int().positive().optional(),
    /** Applies to every request that lands on this step. */
    fault: FaultSchema.optional(),
    /** Used up in order by successive requests landing on this step; then the step answers. */
    faults: z.array(FaultSchema).min(1).optional(),
  })
  .refine((step) => step.fault === undefined || step.faults === undefined, {
    error: 'use `fault` (every request) or `faults` (one per request, in order), not both',
  });
export type Step = z.infer<typeof StepSchema>;
/** A step as written in a playbook. */
export type StepInput = z.input<typeof StepSchema>;

export const MatchSchema = z.strictObject({
  /** A substring of the system prompt or of any system or user message's text. */
  contains: z.string().optional(),
  model: z.string().optional(),
  dialect: DialectSchema.optional(),
});
export type Match = z.infer<typeof MatchSchema>;

export const ScriptSchema = z.strictObject({
  name: z.string().optional(),
  /** Absent: matches every request. */
  match: MatchSchema.optional(),
  /** `steps[n]` answers a conversation that holds n tool results. */
  steps: z.array(StepSchema).min(1, 'expected at least one step'),
  /** Past the last step: `repeat` it, or answer 500 (`error`). */
  after_last: z.enum(['repeat', 'error']).default('repeat'),
});
export type Script = z.infer<typeof ScriptSchema>;

export const PlaybookSchema = z.strictObject({
  scripts: z.array(ScriptSchema).min(1, 'expected at least one script'),
  /** The provider's rate limit, played with its headers and 429s (see `rate-limit.ts`). */
  rate_limit: RateLimitSchema.optional(),
  /** Anthropic prompt caching: prefixes shorter than `min_tokens` are not cached (default 1024). */
  prompt_cache: z.strictObject({ min_tokens: z.number().int().positive() }).optional(),
});
/** A playbook as written (defaults optional). */
export type PlaybookInput = z.input<typeof PlaybookSchema>;
/** A validated playbook. */
export type Playbook = z.infer<typeof PlaybookSchema>;
