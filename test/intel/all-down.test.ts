import { afterEach, describe, expect, it } from 'vitest';
import { createModelClient, type IntelHealthEvent } from '../../src/intel/index.js';
import { isArborError } from '../../src/protocol/index.js';
import {
  FakeServers,
  TIMEOUT_MS,
  USER_HELLO,
  answering,
  failing,
  intelConfig,
  refusedUrl,
} from '../helpers/intel.js';
import { ManualClock } from '../helpers/manual-clock.js';

const servers = new FakeServers();
afterEach(() => servers.closeAll());

const CONCURRENCY = 50;
const BREAKER = { threshold: 1, cooldown_ms: 5_000, cooldown_max_ms: 60_000 };

async function setup(mode: 'one-shot' | 'long-lived') {
  const refused = await refusedUrl();
  const busy = await servers.start(failing({ status: 503 }));
  const clock = new ManualClock();
  const config = intelConfig([refused, busy.url], { retries: 0, breaker: BREAKER });
  const client = createModelClient(config, { mode, clock, random: () => 0 });
  const events: IntelHealthEvent[] = [];
  client.onHealth((event) => events.push(event));
  return { busy, clock, client, events };
}

describe('all endpoints down (one-shot)', () => {
  it('emits exactly one down and one recovery event under 50 concurrent calls', async () => {
    const { busy, clock, client, events } = await setup('one-shot');

    const down = await Promise.allSettled(
      Array.from({ length: CONCURRENCY }, () => client.generate(USER_HELLO)),
    );
    for (const result of down) {
      expect(result.status).toBe('rejected');
      expect(isArborError((result as PromiseRejectedResult).reason, 'intel_unavailable')).toBe(
        true,
      );
    }
    expect(events).toEqual([{ allDown: true }]);
    expect(client.health().map((h) => h.state)).toEqual(['open', 'open']);

    // With every breaker open, a call fails without touching the network.
    const before = busy.requests.length;
    const skipped = await client.generate(USER_HELLO).catch((error: unknown) => error);
    expect(isArborError(skipped, 'intel_unavailable')).toBe(true);
    expect((skipped as Error).message).toBe(
      'No intelligence endpoint answered: endpoint 0: breaker_open (next probe in 5.0 s); ' +
        'endpoint 1: breaker_open (next probe in 5.0 s).',
    );
    expect(busy.requests).toHaveLength(before);
    expect(events).toHaveLength(1);

    busy.setPlaybook(answering('back'));
    clock.advance(5_000);
    const up = await Promise.allSettled(
      Array.from({ length: CONCURRENCY }, () => client.generate(USER_HELLO)),
    );
    const served = up.filter((r) => r.status === 'fulfilled');
    expect(served.length).toBeGreaterThan(0);
    expect(events).toEqual([
      { allDown: true },
      { allDown: false, active: { index: 1, transport: 'http' } },
    ]);

    // Later calls do not repeat the recovery.
    await client.generate(USER_HELLO);
    expect(events).toHaveLength(2);
  });

  it('does not flap when calls that started before a recovery fail after it', async () => {
    const refused = await refusedUrl();
    const busy = await servers.start(failing({ status: 503 }));
    const config = intelConfig([refused, busy.url], {
      retries: 0,
      breaker: { threshold: 1_000, cooldown_ms: 5_000, cooldown_max_ms: 60_000 },
    });
    const client = createModelClient(config);
    const events: IntelHealthEvent[] = [];
    client.onHealth((event) => events.push(event));
    await client.generate(USER_HELLO).catch(() => undefined);
    expect(events).toEqual([{ allDown: true }]);

    // Slow calls fail 50 ms after the fast ones have brought the endpoint back.
    busy.setPlaybook({
      scripts: [
        { match: { contains: 'slow' }, steps: [{ delay_ms: 50, fault: { status: 503 } }] },
        { steps: [{ text: 'back' }] },
      ],
    });
    const ask = (text: string) => client.generate({ messages: [{ role: 'user', text }] });
    const results = await Promise.allSettled(
      Array.from({ length: CONCURRENCY }, (_, i) => ask(i % 2 === 0 ? 'slow' : 'fast')),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(CONCURRENCY / 2);
    expect(events).toEqual([
      { allDown: true },
      { allDown: false, active: { index: 1, transport: 'http' } },
    ]);
  });

  it('declares all down when the sweep is exhausted, before any breaker opens', async () => {
    const refused = await refusedUrl();
    const client = createModelClient(intelConfig([refused], { retries: 0 }));
    const events: IntelHealthEvent[] = [];
    client.onHealth((event) => events.push(event));
    await client.generate(USER_HELLO).catch(() => undefined);
    expect(client.health()[0]?.state).toBe('closed');
    expect(events).toEqual([{ allDown: true }]);
  });
});

describe('all endpoints down (long-lived)', () => {
  it('waits with backoff instead of failing, and resumes on the first healthy probe', async () => {
    const { busy, clock, client, events } = await setup('long-lived');
    const downEvent = new Promise<void>((resolve) =>
      client.onHealth(() => {
        resolve();
      }),
    );
    const calls = Array.from({ length: 5 }, () => client.generate(USER_HELLO));
    await downEvent;
    expect(events).toEqual([{ allDown: true }]);

    busy.setPlaybook(answering('back'));
    clock.autoAdvance((timer) => timer.ms !== TIMEOUT_MS);
    const responses = await Promise.all(calls);
    expect(responses.map((r) => r.endpointIndex)).toEqual([1, 1, 1, 1, 1]);
    expect(events).toEqual([
      { allDown: true },
      { allDown: false, active: { index: 1, transport: 'http' } },
    ]);
    const waits = clock.requested.filter((ms) => ms !== TIMEOUT_MS);
    expect(waits.length).toBeGreaterThan(0);
    for (const ms of waits) {
      expect(ms).toBeGreaterThanOrEqual(1_000);
      expect(ms).toBeLessThanOrEqual(30_000);
    }
  });

  it('honours its abort signal while waiting for recovery', async () => {
    const { clock, client } = await setup('long-lived');
    const controller = new AbortController();
    const call = client.generate(USER_HELLO, { signal: controller.signal });
    await clock.waitForTimer((timer) => timer.ms === 1_000);
    controller.abort(new Error('operator stopped the session'));
    const error = await call.catch((e: unknown) => e);
    expect(isArborError(error, 'cancelled')).toBe(true);
    expect((error as Error).cause).toEqual(new Error('operator stopped the session'));
    expect(clock.pending).toEqual([]);
  });
});
