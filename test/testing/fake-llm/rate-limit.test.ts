import { afterEach, describe, expect, it } from 'vitest';
import { parsePlaybook, startFakeLlm, type FakeLlm } from '../../../src/testing/index.js';
import { FakeRateLimiter, goDuration } from '../../../src/testing/fake-llm/rate-limit.js';

const started: FakeLlm[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((s) => s.close()));
});

const T0 = Date.parse('2026-01-01T00:00:00Z');

describe('FakeRateLimiter', () => {
  it('counts requests and tokens down in OpenAI’s headers, and resets after the window', () => {
    const limiter = new FakeRateLimiter({ requests: 2, tokens: 100, window_ms: 6000 });
    expect(limiter.take('openai', 30, T0)).toEqual({
      ok: true,
      headers: {
        'x-ratelimit-limit-requests': '2',
        'x-ratelimit-remaining-requests': '1',
        'x-ratelimit-reset-requests': '6s',
        'x-ratelimit-limit-tokens': '100',
        'x-ratelimit-remaining-tokens': '70',
        'x-ratelimit-reset-tokens': '6s',
      },
    });
    expect(limiter.take('openai', 30, T0 + 4500)).toMatchObject({
      ok: true,
      headers: { 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': '1.5s' },
    });
    const over = limiter.take('openai', 1, T0 + 5000);
    expect(over).toMatchObject({
      ok: false,
      headers: { 'retry-after': '1', 'x-ratelimit-remaining-requests': '0' },
      body: { error: { type: 'requests', code: 'rate_limit_exceeded', param: null } },
    });
    expect(limiter.take('openai', 1, T0 + 6000)).toMatchObject({
      ok: true,
      headers: { 'x-ratelimit-remaining-requests': '1', 'x-ratelimit-remaining-tokens': '99' },
    });
  });

  it('refuses a request over the token limit without counting it', () => {
    const limiter = new FakeRateLimiter({ tokens: 100, window_ms: 60_000 });
    expect(limiter.take('openai', 80, T0).ok).toBe(true);
    const over = limiter.take('openai', 30, T0);
    expect(over).toMatchObject({
      ok: false,
      headers: { 'retry-after': '60' },
      body: { error: { type: 'tokens', code: 'rate_limit_exceeded' } },
    });
    expect(over.ok ? '' : over.message).toContain('Limit 100, Used 80, Requested 30');
    expect(limiter.take('openai', 20, T0)).toMatchObject({
      ok: true,
      headers: { 'x-ratelimit-remaining-tokens': '0' },
    });
  });

  it('speaks Anthropic’s headers (RFC 3339 resets, input tokens apart) and error body', () => {
    const limiter = new FakeRateLimiter({ requests: 1, tokens: 500, window_ms: 1500 });
    expect(limiter.take('anthropic', 200, T0 + 250)).toEqual({
      ok: true,
      headers: {
        'anthropic-ratelimit-requests-limit': '1',
        'anthropic-ratelimit-requests-remaining': '0',
        // The window ends at 1.75 s; Anthropic's resets are whole seconds, rounded up.
        'anthropic-ratelimit-requests-reset': '2026-01-01T00:00:02Z',
        'anthropic-ratelimit-tokens-limit': '500',
        'anthropic-ratelimit-tokens-remaining': '300',
        'anthropic-ratelimit-tokens-reset': '2026-01-01T00:00:02Z',
        'anthropic-ratelimit-input-tokens-limit': '500',
        'anthropic-ratelimit-input-tokens-remaining': '300',
        'anthropic-ratelimit-input-tokens-reset': '2026-01-01T00:00:02Z',
      },
    });
    expect(limiter.take('anthropic', 1, T0 + 300)).toMatchObject({
      ok: false,
      headers: { 'retry-after': '2' },
      body: { type: 'error', error: { type: 'rate_limit_error' } },
    });
  });

  it.each([
    [20, '20ms'],
    [1000, '1s'],
    [1500, '1.5s'],
    [360_000, '6m0s'],
    [61_250, '1m1.25s'],
    [0.2, '1ms'],
  ])('writes %s ms as the Go duration %s', (ms, text) => {
    expect(goDuration(ms)).toBe(text);
  });
});

describe('a playbook’s rate_limit', () => {
  it.each([
    [{ requests: 2 }, 'window_ms'],
    [{ window_ms: 1000 }, 'expected `requests` or `tokens`'],
    [{ requests: 0, window_ms: 1000 }, 'rate_limit.requests'],
    [{ requests: 2, window_ms: 1000, burst: 3 }, 'burst'],
  ])('refuses %j, naming what is wrong', (rate_limit, message) => {
    expect(() => parsePlaybook({ rate_limit, scripts: [{ steps: [{ text: 'x' }] }] })).toThrow(
      message,
    );
  });

  it.each([false, true])(
    'sends the headers with every answer and a 429 past the limit (stream: %s)',
    async (stream) => {
      const server = await startFakeLlm({
        playbook: {
          rate_limit: { requests: 1, window_ms: 60_000 },
          scripts: [{ steps: [{ text: 'hi' }] }],
        },
      });
      started.push(server);
      const ask = () =>
        fetch(`${server.url}/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'm', stream, messages: [{ role: 'user', content: 'x' }] }),
        });
      const first = await ask();
      await first.text();
      expect(first.status).toBe(200);
      expect(first.headers.get('x-ratelimit-remaining-requests')).toBe('0');
      expect(first.headers.get('x-ratelimit-reset-requests')).toMatch(/^(1m0s|59(\.\d+)?s)$/);
      const second = await ask();
      expect(second.status).toBe(429);
      expect(second.headers.get('retry-after')).toBe('60');
      expect(await second.json()).toMatchObject({ error: { code: 'rate_limit_exceeded' } });
      expect(server.requests.map((r) => [r.status, r.fault])).toEqual([
        [200, null],
        [429, 'rate_limit'],
      ]);
    },
  );
});
