import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { steps } from '../../helpers/fake-llm.js';
import { serveInProcess } from '../../helpers/serve.js';

const ALICE = 'alice-token-0123456789';
const BOB = 'bob-token-0123456789ab';

const principals = {
  serve: {
    principal: [
      { name: 'alice', role: 'user' as const, token: 'env:ALICE_TOKEN' },
      { name: 'bob', role: 'user' as const, token: 'env:BOB_TOKEN', max_runs: 1 },
    ],
  },
  env: { ALICE_TOKEN: ALICE, BOB_TOKEN: BOB },
};

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

async function connect(
  server: Awaited<ReturnType<typeof serveInProcess>>['server'],
  token: string,
) {
  const client = new Client({ name: 'arbor-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
      fetch: (input, init) => Promise.resolve(server.fetch(new Request(input, init))),
    }),
  );
  clients.push(client);
  return client;
}

function textOf(result: unknown): string {
  const first = (result as CallToolResult).content[0];
  return first?.type === 'text' ? first.text : '';
}

describe('runs started over MCP at /mcp of arbor serve', () => {
  it('refuses a principal with limits of its own, which MCP runs would get past, and runs the others', async () => {
    const { server, llm } = await serveInProcess(steps({ text: 'done' }), principals);
    const alice = await connect(server, ALICE);
    const ran = await alice.callTool({ name: 'arbor.run', arguments: { instruction: 'Go.' } });
    expect(textOf(ran)).toBe('done');
    const calls = llm.requests.length;

    const bob = await connect(server, BOB);
    const refused = await bob
      .callTool({ name: 'arbor.run', arguments: { instruction: 'Go past my limit.' } })
      .then(textOf, (error: unknown) => String(error));
    expect(refused).toMatch(/bob has limits of its own \(max_runs, tokens_per_day\)/);
    const plan = await bob
      .callTool({
        name: 'arbor.plan',
        arguments: { plan: '[[subtask]]\nid = "a"\ninstruction = "Task A"\n' },
      })
      .then(textOf, (error: unknown) => String(error));
    expect(plan).toMatch(/bob has limits of its own/);
    expect(llm.requests.length).toBe(calls);
  });
});
