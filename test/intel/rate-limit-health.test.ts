import { afterEach, describe, expect, it } from 'vitest';
import {
  createModelClient,
  type IntelClient,
  type RateLimitReport,
} from '../../src/intel/index.js';
import { FakeServers, TIMEOUT_MS, USER_HELLO, intelConfig } from '../helpers/intel.js';
import { ManualClock } from '../helpers/manual-clock.js';

const servers = new FakeServers();
afterEach(() => servers.closeAll());

/**
 * Two requests per window (60 s by default), against a client on a manual clock that starts at
 * the wall clock's time (Anthropic's resets are wall-clock instants).
 */
async function limited(dialect: 'openai' | 'anthropic', retries = 0, windowMs = 60_000) {
  const server = await servers.start({
    rate_limit: { requests: 2, window_ms: windowMs },
    scripts: [{ steps: [{ text: 'hi', usage: { input_tokens: 40, output_tokens: 2 } }] }],
  });
  const clock = new ManualClock(Date.now());
  const reports: RateLimitReport[] = [];
  const client: IntelClient = createModelClient(
    intelConfig([{ url: server.url, dialect }], { retries }),
    { clock, random: () => 0, onRateLimit: (report) => reports.push(report) },
  );
  return { server, clock, reports, client };
}

describe('rate limits in endpoint health', () => {
  it.each(['openai', 'anthropic'] as const)(
    'every %s response’s headers reach the health record and the listener, a 429’s too',
    async (dialect) => {
      const { client, clock, reports, server } = await limited(dialect);
      await client.generate(USER_HELLO);
      const [health] = client.health();
      expect(health?.scope).toMatch(/^[0-9a-f]{16}$/);
      expect(health?.rateLimit?.at).toBe(clock.now());
      expect(health?.rateLimit?.limits.requests).toMatchObject({ limit: 2, remaining: 1 });
      const resetAt = health?.rateLimit?.limits.requests?.resetAt ?? 0;
      // The window's end, seen from the manual clock (Anthropic's header is in whole seconds).
      expect(resetAt - clock.now()).toBeGreaterThan(58_000);
      expect(resetAt - clock.now()).toBeLessThanOrEqual(61_000);

      for await (const delta of client.stream(USER_HELLO)) expect(delta.type).not.toBe('reset');
      await expect(client.generate(USER_HELLO)).rejects.toMatchObject({
        code: 'intel_unavailable',
      });
      expect(server.requests.map((r) => r.status)).toEqual([200, 200, 429]);
      expect(reports.map((r) => r.limits.requests?.remaining)).toEqual([1, 0, 0]);
      expect(reports.every((r) => r.endpoint === 0 && r.scope === health?.scope)).toBe(true);
      expect(client.health()[0]?.rateLimit?.limits.requests?.remaining).toBe(0);
    },
  );

  it('names the same endpoint by the same scope in every client, and another by another', async () => {
    const server = await servers.start({ scripts: [{ steps: [{ text: 'hi' }] }] });
    const scopeOf = (config: ReturnType<typeof intelConfig>) =>
      createModelClient(config).health()[0]?.scope;
    const a = scopeOf(intelConfig([server.url]));
    expect(scopeOf(intelConfig([server.url]))).toBe(a);
    expect(scopeOf(intelConfig([server.url], { model: 'other-model' }))).not.toBe(a);
    expect(scopeOf(intelConfig([{ url: server.url, dialect: 'anthropic' }]))).not.toBe(a);
    // The scope is a hash: the address is nowhere in it.
    expect(a).not.toContain(String(server.port));
  });

  it('leaves a response without rate-limit headers out of the record', async () => {
    const server = await servers.start({ scripts: [{ steps: [{ text: 'hi' }] }] });
    const reports: RateLimitReport[] = [];
    const client = createModelClient(intelConfig([server.url]), {
      onRateLimit: (r) => reports.push(r),
    });
    await client.generate(USER_HELLO);
    expect(client.health()[0]?.rateLimit).toBeUndefined();
    expect(reports).toEqual([]);
  });

  it('retries a 429 after its retry-after as before, on the clock', async () => {
    const { client, clock, server } = await limited('openai', 1, 20_000);
    await client.generate(USER_HELLO);
    await client.generate(USER_HELLO);
    const third = client.generate(USER_HELLO);
    const wait = await clock.waitForTimer((t) => t.ms !== TIMEOUT_MS);
    // `retry-after` is whole seconds up to the window's end.
    expect(wait.ms).toBe(20_000);
    clock.advance(wait.ms);
    await expect(third).rejects.toMatchObject({ code: 'intel_unavailable' });
    expect(server.requests.map((r) => r.status)).toEqual([200, 200, 429, 429]);
  });
});
