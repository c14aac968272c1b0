import { describe, expect, it } from 'vitest';
import { parseGoDuration, parseRateLimitHeaders } from '../../src/intel/index.js';

const NOW = Date.parse('2026-01-01T00:00:00Z');

describe('parseGoDuration', () => {
  it.each([
    ['1s', 1000],
    ['6m0s', 360_000],
    ['20ms', 20],
    ['1h2m3.5s', 3_723_500],
    ['0s', 0],
    ['59.882s', 59_882],
    ['1.5ms', 2],
    ['250us', 1],
  ])('reads %s as %i ms', (text, ms) => {
    expect(parseGoDuration(text)).toBe(ms);
  });

  it.each(['', 's', '10', '1x', '-1s', '1s junk', 'junk 1s', '1..5s', 'NaNs', '1e3s'])(
    'refuses %j',
    (text) => {
      expect(parseGoDuration(text)).toBeUndefined();
    },
  );
});

describe('parseRateLimitHeaders', () => {
  it('reads OpenAI’s x-ratelimit-* headers, resets as durations from now', () => {
    const headers = new Headers({
      'x-ratelimit-limit-requests': '500',
      'x-ratelimit-remaining-requests': '499',
      'x-ratelimit-reset-requests': '120ms',
      'x-ratelimit-limit-tokens': '30000',
      'x-ratelimit-remaining-tokens': '29000',
      'x-ratelimit-reset-tokens': '6m0s',
    });
    expect(parseRateLimitHeaders(headers, NOW)).toEqual({
      requests: { limit: 500, remaining: 499, resetAt: NOW + 120 },
      tokens: { limit: 30_000, remaining: 29_000, resetAt: NOW + 360_000 },
    });
  });

  it('reads Anthropic’s anthropic-ratelimit-* headers, resets as RFC 3339 times', () => {
    const headers = new Headers({
      'anthropic-ratelimit-requests-limit': '50',
      'anthropic-ratelimit-requests-remaining': '0',
      'anthropic-ratelimit-requests-reset': '2026-01-01T00:00:30Z',
      'anthropic-ratelimit-tokens-limit': '40000',
      'anthropic-ratelimit-tokens-remaining': '1000',
      'anthropic-ratelimit-tokens-reset': '2026-01-01T00:00:01.500Z',
      'anthropic-ratelimit-input-tokens-limit': '30000',
      'anthropic-ratelimit-input-tokens-remaining': '1000',
      'anthropic-ratelimit-input-tokens-reset': '2026-01-01T01:00:00+01:00',
      'anthropic-ratelimit-output-tokens-limit': '8000',
      'anthropic-ratelimit-output-tokens-remaining': '8000',
      'anthropic-ratelimit-output-tokens-reset': '2025-12-31T23:59:00Z',
    });
    expect(parseRateLimitHeaders(headers, NOW)).toEqual({
      requests: { limit: 50, remaining: 0, resetAt: NOW + 30_000 },
      tokens: { limit: 40_000, remaining: 1000, resetAt: NOW + 1500 },
      // `+01:00`: the same instant as now.
      input_tokens: { limit: 30_000, remaining: 1000, resetAt: NOW },
      // A reset in the past: whole again now.
      output_tokens: { limit: 8000, remaining: 8000, resetAt: NOW },
    });
  });

  it('is undefined for a response without rate-limit headers', () => {
    expect(parseRateLimitHeaders(new Headers({ 'content-type': 'text/plain' }), NOW)).toBe(
      undefined,
    );
  });

  it.each([
    ['a remaining count that is not a number', { 'x-ratelimit-remaining-requests': 'lots' }],
    ['a negative remaining count', { 'x-ratelimit-remaining-requests': '-5' }],
    ['a fractional remaining count', { 'x-ratelimit-remaining-tokens': '1.5' }],
    ['a count past 2^53', { 'x-ratelimit-remaining-tokens': '99999999999999999999' }],
    ['a limit alone, without what remains', { 'anthropic-ratelimit-requests-limit': '50' }],
    ['an empty value', { 'anthropic-ratelimit-tokens-remaining': '' }],
  ])('ignores %s', (_, fields) => {
    expect(parseRateLimitHeaders(new Headers(fields), NOW)).toBeUndefined();
  });

  it.each([
    ['a reset that is not a duration', { 'x-ratelimit-reset-requests': 'soon' }],
    ['a reset that is not RFC 3339', { 'anthropic-ratelimit-requests-reset': 'tomorrow' }],
    ['a bare epoch number', { 'anthropic-ratelimit-requests-reset': '1767225600' }],
    ['an impossible date', { 'anthropic-ratelimit-requests-reset': '2026-13-45T99:99:99Z' }],
    ['a reset beyond a day', { 'x-ratelimit-reset-requests': '30h0m0s' }],
  ])('keeps the counts but drops %s', (_, fields) => {
    const openai = Object.keys(fields)[0]!.startsWith('x-');
    const headers = new Headers({
      ...(openai
        ? { 'x-ratelimit-limit-requests': '10', 'x-ratelimit-remaining-requests': '3' }
        : {
            'anthropic-ratelimit-requests-limit': '10',
            'anthropic-ratelimit-requests-remaining': '3',
          }),
      ...fields,
    });
    expect(parseRateLimitHeaders(headers, NOW)).toEqual({ requests: { limit: 10, remaining: 3 } });
  });

  it('drops a limit smaller than what remains (a garbled pair), keeping the remaining count', () => {
    const headers = new Headers({
      'x-ratelimit-limit-requests': '2',
      'x-ratelimit-remaining-requests': '9',
    });
    expect(parseRateLimitHeaders(headers, NOW)).toEqual({ requests: { remaining: 9 } });
  });
});
