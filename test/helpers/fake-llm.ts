import { afterEach } from 'vitest';
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
