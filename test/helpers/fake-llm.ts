import { afterEach } from 'vitest';
import type { Endpoint, IntelConfig } from '../../src/protocol/index.js';
import {
  startFakeLlm,
  type FakeLlm,
  type PlaybookInput,
} from '../../src/testing/fake-llm/index.js';

const servers: FakeLlm[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** Starts a fake LLM for one test; it is closed after the test. */
export async function fakeLlm(playbook: PlaybookInput): Promise<FakeLlm> {
  const server = await startFakeLlm({ playbook });
  servers.push(server);
  return server;
}

/** A playbook whose single script answers with the given steps. */
export function steps(...list: Record<string, unknown>[]): PlaybookInput {
  return { scripts: [{ steps: list }] };
}

/** An intelligence config for tests: these endpoints, model `m`, no retries, a 10 s timeout. */
export function testIntel(endpoints: Endpoint[]): IntelConfig {
  return {
    endpoints,
    model: 'm',
    sampling: {},
    timeout_ms: 10_000,
    retries: 0,
    breaker: { threshold: 3, cooldown_ms: 5000, cooldown_max_ms: 60000 },
    prices: {},
  };
}
