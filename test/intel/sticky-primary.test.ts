import { afterEach, describe, expect, it } from 'vitest';
import { createModelClient } from '../../src/intel/index.js';
import {
  FakeServers,
  TIMEOUT_MS,
  USER_HELLO,
  answering,
  failing,
  intelConfig,
} from '../helpers/intel.js';
import { ManualClock } from '../helpers/manual-clock.js';

const servers = new FakeServers();
afterEach(() => servers.closeAll());

const BREAKER = { threshold: 3, cooldown_ms: 5_000, cooldown_max_ms: 60_000 };

async function setup() {
  const primary = await servers.start(failing({ status: 503 }));
  const secondary = await servers.start(answering('from the secondary'));
  const clock = new ManualClock();
  const config = intelConfig([primary.url, secondary.url], { retries: 0, breaker: BREAKER });
  const client = createModelClient(config, { clock, random: () => 0 });
  return { primary, secondary, clock, client };
}

describe('sticky primary', () => {
  it('sends traffic to the secondary while the primary is down, and back once it recovers', async () => {
    const { primary, secondary, clock, client } = await setup();
    for (let i = 0; i < 3; i++) {
      expect((await client.generate(USER_HELLO)).endpointIndex).toBe(1);
    }
    expect(primary.requests).toHaveLength(3);
    expect(client.health()[0]).toMatchObject({ state: 'open', consecutiveFailures: 3 });

    // While the breaker is open the primary is skipped: no request reaches it.
    clock.advance(4_999);
    expect((await client.generate(USER_HELLO)).endpointIndex).toBe(1);
    expect(primary.requests).toHaveLength(3);

    primary.setPlaybook(answering('from the primary'));
    clock.advance(1);
    expect(client.health()[0]?.state).toBe('half_open');
    const probed = await client.generate(USER_HELLO);
    expect(probed).toMatchObject({ endpointIndex: 0, text: 'from the primary' });
    expect(client.health()[0]).toMatchObject({ state: 'closed', consecutiveFailures: 0 });
    for (let i = 0; i < 3; i++) {
      expect((await client.generate(USER_HELLO)).endpointIndex).toBe(0);
    }
    expect(secondary.requests).toHaveLength(4);
  });

  it('re-opens with a doubled cooldown when the probe fails', async () => {
    const { primary, clock, client } = await setup();
    for (let i = 0; i < 3; i++) await client.generate(USER_HELLO);
    clock.advance(5_000);
    await client.generate(USER_HELLO);
    expect(primary.requests).toHaveLength(4);
    expect(client.health()[0]).toMatchObject({ state: 'open', cooldownMs: 10_000 });

    clock.advance(5_000);
    await client.generate(USER_HELLO);
    expect(primary.requests).toHaveLength(4);

    clock.advance(5_000);
    await client.generate(USER_HELLO);
    expect(primary.requests).toHaveLength(5);
    expect(client.health()[0]?.cooldownMs).toBe(20_000);
  });

  it('lets one probe out while half-open; concurrent calls skip the endpoint meanwhile', async () => {
    const { primary, clock, client } = await setup();
    for (let i = 0; i < 3; i++) await client.generate(USER_HELLO);
    primary.setPlaybook(failing({ kind: 'hang' }));
    clock.advance(5_000);

    const probe = client.generate(USER_HELLO);
    await primary.waitForRequests(4);
    const others = await Promise.all([1, 2, 3].map(() => client.generate(USER_HELLO)));
    expect(others.map((r) => r.endpointIndex)).toEqual([1, 1, 1]);
    expect(primary.requests).toHaveLength(4);

    clock.advance(TIMEOUT_MS);
    expect((await probe).endpointIndex).toBe(1);
    expect(client.health()[0]).toMatchObject({
      state: 'open',
      cooldownMs: 10_000,
      lastErrorKind: 'timeout',
    });
  });

  it('keeps a health record per endpoint: totals, latency average, last ok and error', async () => {
    const { clock, client } = await setup();
    const start = clock.now();
    await client.generate(USER_HELLO);
    clock.advance(1_000);
    await client.generate(USER_HELLO);
    const [primary, secondary] = client.health();
    expect(primary).toMatchObject({
      index: 0,
      dialect: 'openai',
      transport: 'http',
      state: 'closed',
      consecutiveFailures: 2,
      totalCalls: 2,
      totalFailures: 2,
      lastOkAt: undefined,
      lastErrorAt: start + 1_000,
      lastErrorKind: 'status_503',
    });
    expect(secondary).toMatchObject({
      index: 1,
      totalCalls: 2,
      totalFailures: 0,
      lastOkAt: start + 1_000,
      ewmaLatencyMs: 0,
    });
  });
});
