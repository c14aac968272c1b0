import { z } from 'zod';
import { PositiveIntSchema, type Dialect } from '../../protocol/index.js';
import { anthropicError } from './anthropic-reply.js';
import type { Step } from './playbook.js';

/**
 * A playbook's `rate_limit`: requests and/or (input) tokens per fixed window of `window_ms`,
 * across every request the server answers. The window opens at the first request after the last
 * one closed.
 */
export const RateLimitSchema = z
  .strictObject({
    requests: PositiveIntSchema.optional(),
    tokens: PositiveIntSchema.optional(),
    window_ms: PositiveIntSchema,
  })
  .refine((limit) => limit.requests !== undefined || limit.tokens !== undefined, {
    error: 'expected `requests` or `tokens` (or both) beside `window_ms`',
  });
export type RateLimit = z.infer<typeof RateLimitSchema>;

/** What the limiter decided for one request: the headers to send, and a refusal when it is over. */
export type RateDecision =
  | { ok: true; headers: Record<string, string> }
  | { ok: false; headers: Record<string, string>; body: unknown; message: string };

/** The input tokens a step reports for a request (its scripted usage, or four characters a token). */
export function requestTokens(step: Step, requestChars: number): number {
  return step.usage?.input_tokens ?? Math.ceil(requestChars / 4);
}

/** A duration as OpenAI writes resets: `20ms`, `1.5s`, `6m0s` (rounded up to the millisecond). */
export function goDuration(ms: number): string {
  const whole = Math.max(0, Math.ceil(ms));
  if (whole < 1000) return `${whole}ms`;
  const minutes = Math.floor(whole / 60_000);
  const seconds = (whole % 60_000) / 1000;
  return minutes === 0 ? `${seconds}s` : `${minutes}m${seconds}s`;
}

/** An instant as Anthropic writes resets: RFC 3339, whole seconds, rounded up. */
function rfc3339(at: number): string {
  return new Date(Math.ceil(at / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/**
 * The provider's rate limiting, played the way each documents it: every answer carries the
 * limits, what remains and when it resets (OpenAI `x-ratelimit-*`, Anthropic
 * `anthropic-ratelimit-*`), and a request over a limit gets a 429 with `retry-after` and the
 * provider's error body, without being counted.
 */
export class FakeRateLimiter {
  readonly #limit: RateLimit;
  #windowEnd = 0;
  #requests = 0;
  #tokens = 0;

  constructor(limit: RateLimit) {
    this.#limit = limit;
  }

  /** Counts one request of `tokens` input tokens arriving at `now`, or refuses it. */
  take(dialect: Dialect, tokens: number, now: number): RateDecision {
    if (now >= this.#windowEnd) {
      this.#windowEnd = now + this.#limit.window_ms;
      this.#requests = 0;
      this.#tokens = 0;
    }
    const { requests, tokens: tokenLimit } = this.#limit;
    const over =
      requests !== undefined && this.#requests + 1 > requests
        ? 'requests'
        : tokenLimit !== undefined && this.#tokens + tokens > tokenLimit
          ? 'tokens'
          : undefined;
    if (over === undefined) {
      this.#requests += 1;
      this.#tokens += tokens;
      return { ok: true, headers: this.#headers(dialect, now) };
    }
    const waitMs = this.#windowEnd - now;
    const headers = {
      ...this.#headers(dialect, now),
      'retry-after': String(Math.ceil(waitMs / 1000)),
    };
    const limit = over === 'requests' ? (requests ?? 0) : (tokenLimit ?? 0);
    const used = over === 'requests' ? this.#requests : this.#tokens;
    const asked = over === 'requests' ? 1 : tokens;
    if (dialect === 'anthropic') {
      const message = `This request would exceed the rate limit for your organization of ${limit} ${over === 'requests' ? 'requests' : 'input tokens'} per ${this.#limit.window_ms} ms. Please try again after the reset.`;
      return { ok: false, headers, message, body: anthropicError(429, message) };
    }
    const message = `Rate limit reached on ${over} per ${this.#limit.window_ms} ms: Limit ${limit}, Used ${used}, Requested ${asked}. Please try again in ${goDuration(waitMs)}.`;
    return {
      ok: false,
      headers,
      message,
      body: { error: { message, type: over, param: null, code: 'rate_limit_exceeded' } },
    };
  }

  #headers(dialect: Dialect, now: number): Record<string, string> {
    const axes: [string, number, number][] = [];
    if (this.#limit.requests !== undefined)
      axes.push(['requests', this.#limit.requests, this.#limit.requests - this.#requests]);
    if (this.#limit.tokens !== undefined)
      axes.push(['tokens', this.#limit.tokens, this.#limit.tokens - this.#tokens]);
    const headers: Record<string, string> = {};
    const resetMs = this.#windowEnd - now;
    for (const [name, limit, remaining] of axes) {
      if (dialect === 'anthropic') {
        // Anthropic reports the input-token limit apart and `tokens` as the most restrictive one.
        for (const prefix of name === 'tokens' ? ['tokens', 'input-tokens'] : [name]) {
          headers[`anthropic-ratelimit-${prefix}-limit`] = String(limit);
          headers[`anthropic-ratelimit-${prefix}-remaining`] = String(remaining);
          headers[`anthropic-ratelimit-${prefix}-reset`] = rfc3339(this.#windowEnd);
        }
      } else {
        headers[`x-ratelimit-limit-${name}`] = String(limit);
        headers[`x-ratelimit-remaining-${name}`] = String(remaining);
        headers[`x-ratelimit-reset-${name}`] = goDuration(resetMs);
      }
    }
    return headers;
  }
}
