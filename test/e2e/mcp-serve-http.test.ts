import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { fakeLlm } from '../helpers/fake-llm.js';
import { connectArborMcp } from '../helpers/mcp-client.js';
import { serveProcess } from '../helpers/serve.js';
import { SqliteStore } from '../../src/store/index.js';

const clients: Client[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

async function connect(url: string, headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'arbor-e2e', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers } }),
  );
  clients.push(client);
  return client;
}

function textOf(result: CallToolResult): string {
  const first = result.content[0];
  return first?.type === 'text' ? first.text : '';
}

describe('arbor serve at /mcp (Streamable HTTP, the MCP SDK client)', () => {
  it("needs a principal's token, runs arbor.run, and keeps a principal's task across its sessions", async () => {
    const llm = await fakeLlm({ scripts: [{ steps: [{ text: 'forty-two' }] }] });
    const cwd = mkdtempSync(join(tmpdir(), 'arbor-mcp-http-'));
    const { url, token } = await serveProcess(
      ['--intel', llm.url, '--model', 'm', '--sandbox', 'off'],
      { cwd },
    );
    await expect(connect(url, {})).rejects.toThrow(/401|bearer token/i);
    await expect(
      connect(url, { authorization: `Bearer ${token}`, origin: 'https://evil.example' }),
    ).rejects.toThrow(/403|Origin/);

    const auth = { authorization: `Bearer ${token}` };
    const client = await connect(url, auth);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('arbor.run');
    const result = (await client.callTool({
      name: 'arbor.run',
      arguments: { instruction: 'What is the answer?', grant: { exec: 'all' } },
    })) as CallToolResult;
    expect(textOf(result)).toBe('forty-two');
    expect((result.structuredContent as { held: string[] }).held).toEqual([
      expect.stringMatching(/^grant\.exec: asked for "all", given "none"/),
    ]);

    const created = await client.request(
      {
        method: 'tools/call',
        params: { name: 'arbor.run', arguments: { instruction: 'Again.' }, task: {} },
      },
      CreateTaskResultSchema,
    );
    const again = await connect(url, auth);
    const fetched = await again.experimental.tasks.getTaskResult(
      created.task.taskId,
      CallToolResultSchema,
    );
    expect(textOf(fetched)).toBe('forty-two');

    // A task of the local user (stdio, on the same store) is not a principal's, and back.
    const local = await connectArborMcp(['--intel', llm.url, '--model', 'm'], { cwd });
    await local.client.callTool({ name: 'arbor.run', arguments: { instruction: 'Locally.' } });
    const localTasks = (await local.client.experimental.tasks.listTasks()).tasks;
    expect(localTasks).toHaveLength(1);
    const localTask = localTasks[0];
    expect(localTask?.status).toBe('completed');
    // The principal's: its blocking call's task and the one it created, not the local one.
    const remote = await again.experimental.tasks.listTasks();
    expect(remote.tasks.map((task) => task.taskId)).toHaveLength(2);
    expect(remote.tasks.map((task) => task.taskId)).toContain(created.task.taskId);
    await expect(again.experimental.tasks.getTask(localTask?.taskId ?? '')).rejects.toThrow(
      /not found/i,
    );
  });

  it("holds arbor.plan to the MCP caps, not the server's own wider grant", async () => {
    const llm = await fakeLlm({ scripts: [{ steps: [{ text: 'leaf done' }] }] });
    const cwd = mkdtempSync(join(tmpdir(), 'arbor-mcp-http-'));
    // The server's own grant writes, runs any command and reaches any host; an MCP caller's
    // default is read-only.
    const { url, token } = await serveProcess(
      ['--intel', llm.url, '--model', 'm', '--sandbox', 'off', '--fs-write', '.', '--exec', 'all'],
      { cwd },
    );
    const client = await connect(url, { authorization: `Bearer ${token}` });
    const result = (await client.callTool({
      name: 'arbor.plan',
      arguments: { plan: '[[subtask]]\nid = "a"\ninstruction = "Task A"\n' },
    })) as CallToolResult;
    expect(result.isError, textOf(result)).not.toBe(true);
    const store = new SqliteStore(join(cwd, '.arbor', 'arbor.db'));
    try {
      const run = store.listRuns({ limit: 10 }).find((r) => r.meta.plan !== undefined);
      const plan = store.listNodes(run?.id ?? '').find((node) => node.parentId === undefined);
      expect(plan?.payload.caveats).toMatchObject({ fs_write: [], exec: [], net: [] });
    } finally {
      store.close();
    }
  });
});
