import { afterEach, describe, expect, it } from 'vitest';
import { createModelClient } from '../../src/intel/index.js';
import { isArborError, type IntelConfig } from '../../src/protocol/index.js';
import { FakeServers, USER_HELLO, answering, failing, intelConfig } from '../helpers/intel.js';
import { ManualClock } from '../helpers/manual-clock.js';

const servers = new FakeServers();
afterEach(() => servers.closeAll());

const BREAKER = { threshold: 1, cooldown_ms: 5_000, cooldown_max_ms: 60_000 };

function swapError(run: () => void): Error {
  try {
    run();
  } catch (error) {
    if (isArborError(error, 'config')) return error;
    throw error;
  }
  throw new Error('expected the swap to be refused');
}

describe('swap', () => {
  it('repoints the client at a new endpoint list and model, with fresh health', async () => {
    const a = await servers.start(answering('from A'));
    const b = await servers.start(answering('from B'));
    const client = createModelClient(intelConfig([a.url], { model: 'model-a' }));
    await client.generate(USER_HELLO);
    expect(client.health()[0]?.totalCalls).toBe(1);

    client.swap(intelConfig([b.url, a.url], { model: 'model-b' }));
    expect(client.model).toBe('model-b');
    expect(client.health().map((h) => [h.index, h.totalCalls])).toEqual([
      [0, 0],
      [1, 0],
    ]);
    const response = await client.generate(USER_HELLO);
    expect(response).toMatchObject({ text: 'from B', model: 'model-b', endpointIndex: 0 });
    expect(b.requests[0]?.body).toMatchObject({ model: 'model-b' });
  });

  it('starts every breaker closed, even for an endpoint that was open', async () => {
    const a = await servers.start(failing({ status: 503 }));
    const clock = new ManualClock();
    const config = intelConfig([a.url], { retries: 0, breaker: BREAKER });
    const client = createModelClient(config, { clock });
    await client.generate(USER_HELLO).catch(() => undefined);
    expect(client.health()[0]?.state).toBe('open');

    a.setPlaybook(answering('fixed'));
    client.swap(config);
    expect(client.health()[0]?.state).toBe('closed');
    expect((await client.generate(USER_HELLO)).text).toBe('fixed');
  });

  it('lets a call in flight finish on the old endpoints', async () => {
    const a = await servers.start({ scripts: [{ steps: [{ text: 'from A', delay_ms: 50 }] }] });
    const b = await servers.start(answering('from B'));
    const client = createModelClient(intelConfig([a.url]));
    const inFlight = client.generate(USER_HELLO);
    await a.waitForRequests(1);
    client.swap(intelConfig([b.url]));
    expect((await inFlight).text).toBe('from A');
    expect((await client.generate(USER_HELLO)).text).toBe('from B');
  });

  it.each<[string, unknown, string]>([
    ['no endpoints', { endpoints: [], model: 'm' }, '`endpoints`: expected at least one endpoint'],
    [
      'a URL that is not http',
      { endpoints: [{ url: 'ftp://example.com' }], model: 'm' },
      '`endpoints[0].url`: expected an http:// or https:// URL',
    ],
    ['an empty model', { endpoints: [{ url: 'http://x.test' }], model: '' }, '`model`'],
  ])('refuses %s with a config error and keeps the old endpoints', async (_name, bad, message) => {
    const a = await servers.start(answering('from A'));
    const client = createModelClient(intelConfig([a.url], { model: 'model-a' }));
    const error = swapError(() => {
      client.swap(bad as IntelConfig);
    });
    expect(error.message).toMatch(/^Intelligence swap refused, the current endpoints stay: /);
    expect(error.message).toContain(message);
    expect(client.model).toBe('model-a');
    expect((await client.generate(USER_HELLO)).text).toBe('from A');
  });

  it('refuses an invalid config at creation with a config error', () => {
    const error = swapError(() => {
      createModelClient({ endpoints: [], model: 'm' } as unknown as IntelConfig);
    });
    expect(error.message).toBe(
      'Invalid intelligence config: `endpoints`: expected at least one endpoint, got an empty array',
    );
  });
});
