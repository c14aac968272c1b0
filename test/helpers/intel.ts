import { createServer } from 'node:net';
import type { z } from 'zod';
import { IntelConfigSchema, type IntelConfig } from '../../src/protocol/index.js';
import {
  startFakeLlm,
  type FakeLlm,
  type PlaybookInput,
  type StepInput,
} from '../../src/testing/index.js';

/** The per-attempt timeout the intel tests use; backoff sleeps are told apart from it by length. */
export const TIMEOUT_MS = 90_000;

type IntelConfigInput = z.input<typeof IntelConfigSchema>;
type EndpointInput = IntelConfigInput['endpoints'][number];

/** A validated intelligence config with test-friendly defaults. */
export function intelConfig(
  endpoints: (string | EndpointInput)[],
  extra: Partial<IntelConfigInput> = {},
): IntelConfig {
  return IntelConfigSchema.parse({
    endpoints: endpoints.map((e) => (typeof e === 'string' ? { url: e } : e)),
    model: 'test-model',
    timeout_ms: TIMEOUT_MS,
    ...extra,
  });
}

/** A playbook with one script answering `text` to everything. */
export function answering(text: string): PlaybookInput {
  return { scripts: [{ steps: [{ text }] }] };
}

type Fault = NonNullable<StepInput['fault']>;

/** A playbook whose only step plays `fault` on every request. */
export function failing(fault: Fault): PlaybookInput {
  return { scripts: [{ steps: [{ fault }] }] };
}

/** An `http://127.0.0.1:PORT/v1` where nothing listens: connections are refused. */
export async function refusedUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  await new Promise<void>((resolve) =>
    server.close(() => {
      resolve();
    }),
  );
  return `http://127.0.0.1:${port}/v1`;
}

/** Starts fake servers and closes them all after the test. */
export class FakeServers {
  readonly #servers: FakeLlm[] = [];

  async start(playbook: PlaybookInput): Promise<FakeLlm> {
    const server = await startFakeLlm({ playbook });
    this.#servers.push(server);
    return server;
  }

  async closeAll(): Promise<void> {
    await Promise.all(this.#servers.splice(0).map((s) => s.close()));
  }
}

export const USER_HELLO = { messages: [{ role: 'user' as const, text: 'hello' }] };
