import { z } from 'zod';
import { CountSchema, HeadersSchema, PositiveIntSchema } from './primitives.js';

/**
 * The wire dialects arbor speaks: OpenAI chat completions, Anthropic messages, and OpenAI's
 * Responses API (used statelessly: see docs/intelligence.md).
 */
export const DialectSchema = z.enum(['openai', 'anthropic', 'openai-responses']);
export type Dialect = z.infer<typeof DialectSchema>;

/** An `http:` or `https:` URL; its error says what is wrong with one that is not. */
export const HttpUrlSchema = z.url({
  protocol: /^https?$/,
  error: (issue) => describeBadUrl(issue.input),
});

/**
 * Why a string is not an http URL. `new URL` gives one reason for every failure ("Invalid URL"),
 * so the common slips (a port past 65535 or not a number, no scheme at all) are named here.
 */
function describeBadUrl(input: unknown): string {
  const fallback = 'expected an http:// or https:// URL';
  if (typeof input !== 'string') return fallback;
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(input)?.[1];
  if (scheme === undefined) return `${fallback} (no \`http://\` or \`https://\` in front)`;
  const port = /^https?:\/\/(?:[^@/?#]*@)?(?:\[[^\]]*\]|[^:/?#]*):([^/?#]*)/i.exec(input)?.[1];
  if (port !== undefined && port !== '') {
    if (!/^\d+$/.test(port)) return `${fallback}: the port \`${port}\` is not a number`;
    if (Number(port) > 65_535) return `${fallback}: the port ${port} is out of range (0 to 65535)`;
  }
  return fallback;
}

/** How hard a reasoning model thinks (OpenAI's `reasoning_effort` / Responses `reasoning.effort`). */
export const ReasoningEffortSchema = z.enum(['none', 'minimal', 'low', 'medium', 'high', 'xhigh']);
export type ReasoningEffort = z.infer<typeof ReasoningEffortSchema>;

/** Sampling options passed to the model. Absent fields are left to the server's defaults. */
export const SamplingSchema = z.object({
  temperature: z.number().min(0).max(2).optional(),
  top_p: z.number().gt(0).max(1).optional(),
  /** Upper bound on output tokens per model call. */
  max_output_tokens: PositiveIntSchema.optional(),
  stop: z.array(z.string()).optional(),
  seed: z.number().int().optional(),
  /** Reasoning effort for OpenAI reasoning models (chat completions and the Responses API). */
  reasoning_effort: ReasoningEffortSchema.optional(),
  /** Anthropic extended thinking: the token budget of thinking per call (at least 1024). */
  thinking_budget_tokens: z.number().int().min(1024).optional(),
});
export type Sampling = z.infer<typeof SamplingSchema>;

/**
 * One place a model can be reached. Endpoints are tried in list order; each carries its own
 * dialect and credential so a list may mix providers.
 */
export const EndpointSchema = z.object({
  /** Base URL, e.g. `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1`. */
  url: HttpUrlSchema,
  dialect: DialectSchema.default('openai'),
  /** Model name for this endpoint when it differs from the config-wide `model`. */
  model: z.string().min(1).optional(),
  /**
   * Where the credential comes from: `env:NAME` or `{{secret:NAME}}`. Public: it is kept in stored
   * payloads so a restored node can resolve the credential again.
   */
  credential_ref: z.string().min(1).optional(),
  /**
   * The resolved credential. It travels to the child over the control pipe only and is stripped
   * from every stored, logged or displayed copy.
   */
  api_key: z.string().min(1).optional(),
  /** Extra request headers. Values of authentication-like headers are redacted when shown. */
  headers: HeadersSchema.default({}),
  /**
   * Sampling options for this endpoint, over the config's and under a call's own (a reasoning
   * effort or thinking budget that only one provider of the list takes).
   */
  sampling: SamplingSchema.optional(),
  /**
   * OpenAI chat completions: the field the output cap is sent in. Default: `max_completion_tokens`
   * for OpenAI's own API and Azure OpenAI (their reasoning models refuse `max_tokens`),
   * `max_tokens` for every other OpenAI-compatible server.
   */
  max_tokens_field: z.enum(['max_tokens', 'max_completion_tokens']).optional(),
  /**
   * Anthropic prompt caching, on when absent: breakpoints on tools + system and on the newest turn.
   */
  prompt_cache: z
    .object({
      enabled: z.boolean().default(true),
      /** How long a cache entry lives: five minutes (writes at 1.25×) or an hour (2×). */
      ttl: z.enum(['5m', '1h']).default('5m'),
    })
    .optional(),
});
export type Endpoint = z.infer<typeof EndpointSchema>;

/** Per-endpoint circuit breaker settings. */
export const BreakerSettingsSchema = z.object({
  /** Consecutive failures that open the breaker. */
  threshold: PositiveIntSchema.default(3),
  /** First cooldown before a half-open probe, in milliseconds; it doubles on each re-open. */
  cooldown_ms: PositiveIntSchema.default(5_000),
  /** Ceiling of the doubling cooldown, in milliseconds. */
  cooldown_max_ms: PositiveIntSchema.default(60_000),
});
export type BreakerSettings = z.infer<typeof BreakerSettingsSchema>;

/**
 * USD per million tokens for one model: a price of the user's, over the default table
 * (docs/budget.md). Input is priced per kind: uncached input at `input_per_mtok`, cache reads at
 * `cache_read_per_mtok` (default: the input rate), cache writes at `cache_write_per_mtok`
 * (default: the input rate) and one-hour writes at `cache_write_1h_per_mtok` (default: the
 * five-minute write rate). Reasoning tokens are output tokens and priced as such.
 */
export const ModelPriceSchema = z.object({
  input_per_mtok: z.number().nonnegative(),
  output_per_mtok: z.number().nonnegative(),
  cache_read_per_mtok: z.number().nonnegative().optional(),
  cache_write_per_mtok: z.number().nonnegative().optional(),
  cache_write_1h_per_mtok: z.number().nonnegative().optional(),
});
export type ModelPrice = z.infer<typeof ModelPriceSchema>;

/** How a child reaches its model: an ordered endpoint list, a model, and call settings. */
export const IntelConfigSchema = z.object({
  endpoints: z.array(EndpointSchema).min(1, 'expected at least one endpoint'),
  model: z.string().min(1),
  sampling: SamplingSchema.default({}),
  /** Per-call timeout, in milliseconds. */
  timeout_ms: PositiveIntSchema.default(120_000),
  /** Retries on the same endpoint for 429 and 5xx before failing over. */
  retries: CountSchema.default(2),
  breaker: BreakerSettingsSchema.prefault({}),
  /**
   * Prices of the user's keyed by model name, over the default table. The supervisor prices each
   * call's usage with them; a child never does.
   */
  prices: z.record(z.string(), ModelPriceSchema).default({}),
});
export type IntelConfig = z.infer<typeof IntelConfigSchema>;

/** How a hot swap treats the turn in flight. */
export const SwapPolicySchema = z.enum(['finish-on-old', 'restart-turn']);
export type SwapPolicy = z.infer<typeof SwapPolicySchema>;

/**
 * Which endpoint is serving, reported with intelligence health. Index and transport only: never
 * a URL or a credential.
 */
export const IntelActiveSchema = z.object({
  index: CountSchema,
  transport: z.enum(['http', 'https']),
});
export type IntelActive = z.infer<typeof IntelActiveSchema>;
