import { afterEach, describe, expect, it } from 'vitest';
import {
  createModelClient,
  type IntelClient,
  type ModelDelta,
  type ModelRequest,
  type ModelResponse,
} from '../../src/intel/index.js';
import { ArborError, type IntelConfig } from '../../src/protocol/index.js';
import type { FakeLlm } from '../../src/testing/index.js';
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

type Mode = 'generate' | 'stream';

/** A client whose backoff sleeps pass at once on a manual clock; the attempt timeout does not. */
function clientFor(config: IntelConfig): { client: IntelClient; clock: ManualClock } {
  const clock = new ManualClock();
  clock.autoAdvance((timer) => timer.ms !== TIMEOUT_MS);
  return { client: createModelClient(config, { clock, random: () => 0 }), clock };
}

async function call(
  client: IntelClient,
  mode: Mode,
  request: ModelRequest,
): Promise<ModelResponse> {
  if (mode === 'generate') return client.generate(request);
  const deltas: ModelDelta[] = [];
  for await (const delta of client.stream(request)) deltas.push(delta);
  const last = deltas.at(-1);
  if (last?.type !== 'done') throw new Error('the stream did not end with done');
  return last.response;
}

async function rejection(promise: Promise<unknown>): Promise<ArborError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ArborError) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
}

/** A failing primary and a healthy secondary. */
async function pair(
  primary: FakeLlm | string,
): Promise<{ secondary: FakeLlm; config: IntelConfig }> {
  const secondary = await servers.start(answering('from the secondary'));
  const url = typeof primary === 'string' ? primary : primary.url;
  return { secondary, config: intelConfig([url, secondary.url]) };
}

describe.each<Mode>(['generate', 'stream'])('failover (%s)', (mode) => {
  it('fails over when the primary refuses connections', async () => {
    const { secondary, config } = await pair(await refusedUrl());
    const { client } = clientFor(config);
    const response = await call(client, mode, USER_HELLO);
    expect(response).toMatchObject({ text: 'from the secondary', endpointIndex: 1 });
    expect(secondary.requests).toHaveLength(1);
    expect(client.health()[0]).toMatchObject({ lastErrorKind: 'connection', totalFailures: 1 });
  });

  it('fails over, without retrying, when the primary resets the connection', async () => {
    const primary = await servers.start(failing({ kind: 'reset' }));
    const { config } = await pair(primary);
    const { client } = clientFor(config);
    const response = await call(client, mode, USER_HELLO);
    expect(response.endpointIndex).toBe(1);
    expect(primary.requests).toHaveLength(1);
    expect(client.health()[0]?.lastErrorKind).toBe('connection');
  });

  it('times out a hanging primary, closes its socket and fails over', async () => {
    const primary = await servers.start(failing({ kind: 'hang' }));
    const { config } = await pair(primary);
    const { client, clock } = clientFor(config);
    const pending = call(client, mode, USER_HELLO);
    await primary.waitForRequests(1);
    clock.advance(TIMEOUT_MS);
    const response = await pending;
    expect(response.endpointIndex).toBe(1);
    await primary.waitForSocketClose(primary.requests[0]!.socket);
    expect(client.health()[0]?.lastErrorKind).toBe('timeout');
  });

  it('waits as Retry-After says on a 429, then succeeds on the same endpoint', async () => {
    const primary = await servers.start({
      scripts: [
        {
          steps: [{ text: 'from the primary', faults: [{ status: 429, retry_after: 7 }] }],
        },
      ],
    });
    const { secondary, config } = await pair(primary);
    const { client, clock } = clientFor(config);
    const response = await call(client, mode, USER_HELLO);
    expect(response).toMatchObject({ text: 'from the primary', endpointIndex: 0 });
    expect(primary.requests.map((r) => r.status)).toEqual([429, 200]);
    expect(clock.requested).toContain(7_000);
    expect(secondary.requests).toHaveLength(0);
  });

  it.each([429, 500, 502, 503, 504, 408])(
    'retries HTTP %i on the same endpoint `retries` times, then fails over',
    async (status) => {
      const primary = await servers.start(failing({ status }));
      const { config } = await pair(primary);
      const { client, clock } = clientFor(config);
      const response = await call(client, mode, USER_HELLO);
      expect(response.endpointIndex).toBe(1);
      expect(primary.requests).toHaveLength(1 + config.retries);
      const backoffs = clock.requested.filter((ms) => ms !== TIMEOUT_MS);
      expect(backoffs).toHaveLength(config.retries);
      for (const ms of backoffs) expect(ms).toBeGreaterThanOrEqual(500);
      expect(client.health()[0]?.lastErrorKind).toBe(`status_${status}`);
    },
  );

  it.each([401, 403])(
    'fails at once on HTTP %i, naming the endpoint, with no failover',
    async (status) => {
      const primary = await servers.start(failing({ status }));
      const { secondary, config } = await pair(primary);
      const { client } = clientFor(config);
      const error = await rejection(call(client, mode, USER_HELLO));
      expect(error.code).toBe('intel_auth');
      expect(error.message).toMatch(/^Endpoint 0 refused the credential: HTTP \d+/);
      expect(error.details).toMatchObject({ endpointIndex: 0, status });
      expect(primary.requests).toHaveLength(1);
      expect(secondary.requests).toHaveLength(0);
    },
  );

  it.each([400, 404, 422])(
    'does not retry or fail over on HTTP %i: intel_bad_request',
    async (status) => {
      const primary = await servers.start(
        failing({ status, body: '{"error":{"message":"max_tokens is too large"}}' }),
      );
      const { secondary, config } = await pair(primary);
      const { client } = clientFor(config);
      const error = await rejection(call(client, mode, USER_HELLO));
      expect(error.code).toBe('intel_bad_request');
      expect(error.message).toBe(
        `Endpoint 0 rejected the request: HTTP ${status}: max_tokens is too large.`,
      );
      expect(primary.requests).toHaveLength(1);
      expect(secondary.requests).toHaveLength(0);
    },
  );

  it('does not retry or fail over on a malformed body: intel_bad_response', async () => {
    const primary = await servers.start(failing({ kind: 'malformed' }));
    const { secondary, config } = await pair(primary);
    const { client } = clientFor(config);
    const error = await rejection(call(client, mode, USER_HELLO));
    expect(error.code).toBe('intel_bad_response');
    expect(error.message).toMatch(/^Endpoint 0 answered with something arbor cannot read: /);
    expect(error.details).toMatchObject({ endpointIndex: 0, kind: 'bad_response' });
    expect(primary.requests).toHaveLength(1);
    expect(secondary.requests).toHaveLength(0);
  });

  it('reports every endpoint with its failure class when the sweep is exhausted', async () => {
    const refused = await refusedUrl();
    const busy = await servers.start(failing({ status: 503 }));
    const { client } = clientFor(intelConfig([refused, busy.url], { retries: 1 }));
    const error = await rejection(call(client, mode, USER_HELLO));
    expect(error.code).toBe('intel_unavailable');
    expect(error.message).toBe(
      'No intelligence endpoint answered: endpoint 0: connection (connection refused: nothing listens at that address and port (ECONNREFUSED)); ' +
        'endpoint 1: status_503 after 2 attempts (HTTP 503: Scripted failure (HTTP 503) from arbor mock-llm.).',
    );
    expect(error.details.endpoints).toEqual([
      {
        index: 0,
        kind: 'connection',
        attempts: 1,
        detail: 'connection refused: nothing listens at that address and port (ECONNREFUSED)',
      },
      expect.objectContaining({ index: 1, kind: 'status_503', attempts: 2 }),
    ]);
  });
});

describe('retry limits', () => {
  it('fails over at once when Retry-After asks for longer than the client will wait', async () => {
    const primary = await servers.start(failing({ status: 429, retry_after: 3600 }));
    const { config } = await pair(primary);
    const { client } = clientFor(config);
    const response = await client.generate(USER_HELLO);
    expect(response.endpointIndex).toBe(1);
    expect(primary.requests).toHaveLength(1);
  });

  it('makes a single attempt per endpoint with `retries: 0`', async () => {
    const primary = await servers.start(failing({ status: 503 }));
    const secondary = await servers.start(answering('ok'));
    const { client } = clientFor(intelConfig([primary.url, secondary.url], { retries: 0 }));
    await client.generate(USER_HELLO);
    expect(primary.requests).toHaveLength(1);
  });
});
