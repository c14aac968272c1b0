import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createModelClient,
  type IntelClient,
  type IntelHealthEvent,
} from '../../src/intel/index.js';
import type { Dialect, IntelConfig } from '../../src/protocol/index.js';
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

const CANARY = 'sk-ARBOR-LEAK-CANARY-7f3a9c1e5b2d4680';
const ECHO = JSON.stringify({
  error: { message: `Incorrect API key provided: ${CANARY}. You can find your key at ...` },
});

/** Everything an error can carry: message, stack, details, and the same for each cause. */
function errorText(error: unknown): string {
  const parts: string[] = [];
  for (let at: unknown = error, depth = 0; at !== undefined && depth < 8; depth++) {
    if (at instanceof Error) {
      parts.push(
        at.message,
        at.stack ?? '',
        JSON.stringify((at as { details?: unknown }).details ?? {}),
      );
      at = at.cause;
    } else {
      parts.push(inspect(at));
      at = undefined;
    }
  }
  parts.push(inspect(error, { depth: 8 }));
  return parts.join('\n');
}

const FAULTS: [string, Record<string, unknown>][] = [
  ['401 echoing the key', { status: 401, body: ECHO }],
  ['403', { status: 403 }],
  ['400 echoing the key', { status: 400, body: ECHO }],
  ['503 echoing the key', { status: 503, body: ECHO }],
  ['429 echoing the key as text', { status: 429, body: `slow down ${CANARY}` }],
  ['a reset', { kind: 'reset' }],
  ['a hang (timeout)', { kind: 'hang' }],
  ['a malformed body', { kind: 'malformed' }],
];

interface Captured {
  texts: string[];
  events: IntelHealthEvent[];
}

async function exercise(client: IntelClient, clock: ManualClock, server: FakeLlm | undefined) {
  const captured: Captured = { texts: [], events: [] };
  client.onHealth((event) => captured.events.push(event));
  for (const mode of ['generate', 'stream'] as const) {
    const before = server?.requests.length ?? 0;
    const call =
      mode === 'generate'
        ? client.generate(USER_HELLO)
        : (async () => {
            for await (const _ of client.stream(USER_HELLO)) {
              // drain
            }
          })();
    const settled = call.then(
      () => undefined,
      (error: unknown) => error,
    );
    if (server !== undefined) {
      // A hanging endpoint is let go by the timeout; other faults answer at once.
      await server.waitForRequests(before + 1);
      clock.advance(TIMEOUT_MS);
    }
    const error = await settled;
    expect(error).toBeDefined();
    captured.texts.push(errorText(error));
  }
  captured.texts.push(JSON.stringify(client.health()), inspect(client.health()));
  captured.texts.push(JSON.stringify(captured.events));
  return captured;
}

/** The whole key, and its distinctive middle: a clipped echo must not leak a prefix either. */
const PIECES = [CANARY, 'LEAK-CANARY'];

function assertClean(texts: string[], forbidden: string[]): void {
  for (const text of texts) {
    for (const secret of [...PIECES, ...forbidden]) expect(text).not.toContain(secret);
  }
}

function leakyConfig(url: string, dialect: Dialect, extra: Partial<IntelConfig> = {}): IntelConfig {
  return intelConfig(
    [{ url, dialect, api_key: CANARY, headers: { 'x-canary-token': CANARY, 'x-team': 'search' } }],
    { retries: 1, ...extra },
  );
}

describe.each<Dialect>(['openai', 'anthropic', 'openai-responses'])(
  'no credential leaks (%s)',
  (dialect) => {
    it.each(FAULTS)('after %s', async (_name, fault) => {
      const server = await servers.start(failing(fault));
      const clock = new ManualClock();
      clock.autoAdvance((timer) => timer.ms !== TIMEOUT_MS);
      const client = createModelClient(leakyConfig(server.url, dialect), { clock });
      const captured = await exercise(client, clock, server);
      const address = new URL(server.url).host;
      assertClean(captured.texts, [CANARY, address]);
      // The server did receive the credential; its record of the request does not keep it.
      const seen = server.requests[0];
      expect(seen?.headers[dialect === 'anthropic' ? 'x-api-key' : 'authorization']).toBe(
        '[redacted]',
      );
      expect(JSON.stringify(server.requests)).not.toContain(CANARY);
    });

    it('after refused connections', async () => {
      const url = await refusedUrl();
      const clock = new ManualClock();
      const client = createModelClient(leakyConfig(url, dialect), { clock });
      const captured = await exercise(client, clock, undefined);
      assertClean(captured.texts, [CANARY, new URL(url).host]);
      expect(captured.events).toEqual([{ allDown: true }]);
    });

    it('when the key cannot even be sent (a newline in it)', async () => {
      const server = await servers.start(answering('never'));
      const broken = `${CANARY}\nX-Injected: 1`;
      const client = createModelClient(
        intelConfig([{ url: server.url, dialect, api_key: broken }], { retries: 0 }),
      );
      const error = await client.generate(USER_HELLO).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'intel_bad_request' });
      assertClean([errorText(error), JSON.stringify(client.health())], [CANARY]);
      expect(server.requests).toHaveLength(0);
    });

    it('when a swap is refused', async () => {
      const server = await servers.start(answering('fine'));
      const client = createModelClient(leakyConfig(server.url, dialect));
      const bad = leakyConfig(server.url, dialect);
      const broken = { ...bad, endpoints: [{ ...bad.endpoints[0]!, url: `ftp://${CANARY}@x` }] };
      const error = (() => {
        try {
          client.swap(broken);
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      expect(error).toMatchObject({ code: 'config' });
      assertClean([errorText(error)], [CANARY]);
    });
  },
);
