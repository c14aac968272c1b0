import { afterEach, describe, expect, it } from 'vitest';
import { createModelClient, type IntelClient } from '../../src/intel/index.js';
import { isArborError } from '../../src/protocol/index.js';
import type { FakeLlm } from '../../src/testing/index.js';
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

type Start = (client: IntelClient, signal: AbortSignal) => Promise<unknown>;

const GENERATE: Start = (client, signal) => client.generate(USER_HELLO, { signal });
const STREAM: Start = async (client, signal) => {
  for await (const _ of client.stream(USER_HELLO, { signal })) {
    // drain
  }
};

async function cancelledIn(server: FakeLlm, client: IntelClient, start: Start) {
  const controller = new AbortController();
  const call = start(client, controller.signal).catch((error: unknown) => error);
  await server.waitForRequests(1);
  controller.abort(new Error('user pressed ctrl-c'));
  return call;
}

describe('cancellation', () => {
  it.each([
    ['generate', GENERATE],
    ['stream', STREAM],
  ])(
    '%s: aborting mid-request closes the socket and rejects with `cancelled`',
    async (_name, start) => {
      const server = await servers.start(failing({ kind: 'hang' }));
      const client = createModelClient(intelConfig([server.url]));
      const error = await cancelledIn(server, client, start);
      expect(isArborError(error, 'cancelled')).toBe(true);
      expect((error as Error).cause).toEqual(new Error('user pressed ctrl-c'));
      await server.waitForSocketClose(server.requests[0]!.socket);
      // Cancelling says nothing about the endpoint.
      expect(client.health()[0]).toMatchObject({
        state: 'closed',
        totalFailures: 0,
        totalCalls: 0,
      });
    },
  );

  it('abandons a delayed answer: the server sees the socket close before it answers', async () => {
    const server = await servers.start({
      scripts: [{ steps: [{ text: 'late', delay_ms: 60_000 }] }],
    });
    const client = createModelClient(intelConfig([server.url]));
    await cancelledIn(server, client, GENERATE);
    await server.waitForSocketClose(server.requests[0]!.socket);
    expect(server.requests[0]?.status).toBeNull();
  });

  it('stops a retry backoff at once and leaves no timer behind', async () => {
    const server = await servers.start(failing({ status: 503 }));
    const clock = new ManualClock();
    const client = createModelClient(intelConfig([server.url]), { clock, random: () => 0 });
    const controller = new AbortController();
    const call = client
      .generate(USER_HELLO, { signal: controller.signal })
      .catch((e: unknown) => e);
    await clock.waitForTimer((timer) => timer.ms !== TIMEOUT_MS);
    controller.abort();
    expect(isArborError(await call, 'cancelled')).toBe(true);
    expect(clock.pending).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });

  it('rejects at once, without a request, when the signal is already aborted', async () => {
    const server = await servers.start(answering('never'));
    const client = createModelClient(intelConfig([server.url]));
    const error = await client
      .generate(USER_HELLO, { signal: AbortSignal.abort() })
      .catch((e: unknown) => e);
    expect(isArborError(error, 'cancelled')).toBe(true);
    expect(server.requests).toHaveLength(0);
  });

  it('close() cancels every call in flight and refuses new ones', async () => {
    const server = await servers.start(failing({ kind: 'hang' }));
    const client = createModelClient(intelConfig([server.url]));
    const calls = [1, 2, 3].map(() => client.generate(USER_HELLO).catch((e: unknown) => e));
    await server.waitForRequests(3);
    client.close();
    for (const error of await Promise.all(calls))
      expect(isArborError(error, 'cancelled')).toBe(true);
    await Promise.all(server.requests.map((r) => server.waitForSocketClose(r.socket)));
    await expect(client.generate(USER_HELLO)).rejects.toMatchObject({ code: 'cancelled' });
  });

  it('leaving a stream early aborts the request', async () => {
    const server = await servers.start(answering('one two three four five six seven eight'));
    const client = createModelClient(intelConfig([server.url]));
    const seen: string[] = [];
    for await (const delta of client.stream(USER_HELLO)) {
      if (delta.type === 'text') seen.push(delta.text);
      break;
    }
    expect(seen).toEqual(['one ']);
    expect(client.health()[0]?.totalFailures).toBe(0);
  });
});
