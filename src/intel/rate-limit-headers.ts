import type { RateLimitName } from '../protocol/index.js';
import type { HeaderReader } from './http-transport.js';

/** One of a provider's limits, read from a response: its size, what is left, when it is whole. */
export interface RateLimitReading {
  limit?: number;
  remaining: number;
  /** When the limit is whole again, epoch ms (on the clock that read the response). */
  resetAt?: number;
}

/** What one response said of the provider's limits; absent limits were not reported. */
export type RateLimits = Partial<Record<RateLimitName, RateLimitReading>>;

/** A reset further ahead than this is not believed (a garbled header, a clock gone wrong). */
const MAX_RESET_MS = 24 * 60 * 60 * 1000;

/** Go duration units, as OpenAI writes resets (`1s`, `6m0s`, `20ms`, `1h2m3.5s`). */
const UNIT_MS: Readonly<Record<string, number>> = {
  h: 3_600_000,
  m: 60_000,
  s: 1000,
  ms: 1,
  us: 0.001,
  µs: 0.001,
  ns: 0.000_001,
};
const DURATION_PART = /(\d+(?:\.\d+)?)(ms|us|µs|ns|h|m|s)/y;
/** RFC 3339, as Anthropic writes resets (`2025-01-01T00:00:30Z`, with an optional fraction or offset). */
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/i;

/** Reads a Go duration (`6m0s`) in milliseconds; `undefined` for anything else. */
export function parseGoDuration(text: string): number | undefined {
  const value = text.trim();
  if (value === '') return undefined;
  let total = 0;
  DURATION_PART.lastIndex = 0;
  while (DURATION_PART.lastIndex < value.length) {
    const at = DURATION_PART.lastIndex;
    const part = DURATION_PART.exec(value);
    if (part?.index !== at) return undefined;
    total += Number(part[1]) * (UNIT_MS[part[2] ?? ''] ?? Number.NaN);
  }
  return Number.isFinite(total) ? Math.ceil(total) : undefined;
}

function parseCount(text: string | null): number | undefined {
  if (text === null) return undefined;
  const value = text.trim();
  if (!/^\d{1,15}$/.test(value)) return undefined;
  return Number(value);
}

/** A reset `ms` from `now`, or `undefined` when it is unreadable or past belief. */
function resetFrom(ms: number | undefined, now: number): number | undefined {
  if (ms === undefined || ms < 0 || ms > MAX_RESET_MS) return undefined;
  return now + ms;
}

function reading(
  limit: number | undefined,
  remaining: number | undefined,
  resetAt: number | undefined,
): RateLimitReading | undefined {
  if (remaining === undefined) return undefined;
  // A remaining count above the limit is a garbled pair: keep the remaining count alone.
  const isLimitSane = limit !== undefined && limit >= remaining;
  return {
    ...(isLimitSane ? { limit } : {}),
    remaining,
    ...(resetAt === undefined ? {} : { resetAt }),
  };
}

/** OpenAI: `x-ratelimit-{limit,remaining,reset}-{requests,tokens}`, resets as Go durations. */
function openAiLimits(headers: HeaderReader, now: number): RateLimits {
  const out: RateLimits = {};
  for (const name of ['requests', 'tokens'] as const) {
    const reset = headers.get(`x-ratelimit-reset-${name}`);
    const read = reading(
      parseCount(headers.get(`x-ratelimit-limit-${name}`)),
      parseCount(headers.get(`x-ratelimit-remaining-${name}`)),
      resetFrom(reset === null ? undefined : parseGoDuration(reset), now),
    );
    if (read !== undefined) out[name] = read;
  }
  return out;
}

const ANTHROPIC_PREFIX: Readonly<Record<RateLimitName, string>> = {
  requests: 'anthropic-ratelimit-requests',
  tokens: 'anthropic-ratelimit-tokens',
  input_tokens: 'anthropic-ratelimit-input-tokens',
  output_tokens: 'anthropic-ratelimit-output-tokens',
};

/** Anthropic: `anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-{limit,remaining,reset}`. */
function anthropicLimits(headers: HeaderReader, now: number): RateLimits {
  const out: RateLimits = {};
  for (const [name, prefix] of Object.entries(ANTHROPIC_PREFIX) as [RateLimitName, string][]) {
    const reset = headers.get(`${prefix}-reset`)?.trim();
    const at = reset !== undefined && RFC3339.test(reset) ? Date.parse(reset) : Number.NaN;
    const read = reading(
      parseCount(headers.get(`${prefix}-limit`)),
      parseCount(headers.get(`${prefix}-remaining`)),
      Number.isNaN(at) ? undefined : resetFrom(Math.max(0, at - now), now),
    );
    if (read !== undefined) out[name] = read;
  }
  return out;
}

/**
 * The provider's rate limits from a response's headers (a success or a 429 alike), in OpenAI's
 * or Anthropic's form, whichever the response carries. A header that cannot be read is left out,
 * never an error: garbage costs the reading, not the call. `undefined` when nothing was readable.
 */
export function parseRateLimitHeaders(headers: HeaderReader, now: number): RateLimits | undefined {
  const limits = { ...openAiLimits(headers, now), ...anthropicLimits(headers, now) };
  return Object.keys(limits).length === 0 ? undefined : limits;
}
