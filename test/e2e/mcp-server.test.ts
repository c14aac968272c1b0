import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  ElicitRequestSchema,
  type CallToolResult,
  type Progress,
} from '@modelcontextprotocol/sdk/types.js';
import { SqliteStore } from '../../src/store/index.js';
import { fakeLlm } from '../helpers/fake-llm.js';
import { connectArborMcp, mcpWorkdir } from '../helpers/mcp-client.js';

const ANSWER = { text: 'forty-two', usage: { input_tokens: 11, output_tokens: 7 } };

function textOf(result: CallToolResult): string {
  const first = result.content[0];
  return first?.type === 'text' ? first.text : '';
}

/** The run store the server at `cwd` wrote (its default path), read as arbor reads it. */
function storeAt(cwd: string): SqliteStore {
  return new SqliteStore(join(cwd, '.arbor', 'arbor.db'));
}

/** Resolves with the first progress message `matches` accepts; records every one. */
function progressUntil(matches: (progress: Progress) => boolean) {
  const seen: Progress[] = [];
  let resolve!: (progress: Progress) => void;
  const reached = new Promise<Progress>((done) => {
    resolve = done;
  });
  return {
    seen,
    reached,
    onprogress: (progress: Progress) => {
      seen.push(progress);
      if (matches(progress)) resolve(progress);
    },
  };
}

describe('arbor mcp (a real process, the MCP SDK client over stdio)', () => {
  it('lists its tools, arbor.run and arbor.plan with optional task support', async () => {
    const llm = await fakeLlm({ scripts: [{ steps: [ANSWER] }] });
    const { client } = await connectArborMcp(['--intel', llm.url, '--model', 'm']);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      'arbor.plan',
      'arbor.run',
      'runs.list',
      'runs.show',
    ]);
    const run = tools.find((tool) => tool.name === 'arbor.run');
    expect(run?.execution?.taskSupport).toBe('optional');
    expect(Object.keys(run?.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(['instruction', 'grant', 'budget', 'deadline_seconds']),
    );
    expect(client.getServerCapabilities()?.tasks?.requests?.tools?.call).toBeDefined();
  });

  it('answers a blocking arbor.run with the answer and usage, and reports progress', async () => {
    const llm = await fakeLlm({ scripts: [{ steps: [ANSWER] }] });
    const { client } = await connectArborMcp(['--intel', llm.url, '--model', 'm']);
    const progress = progressUntil(() => false);
    const result = (await client.callTool(
      { name: 'arbor.run', arguments: { instruction: 'What is the answer?' } },
      CallToolResultSchema,
      { onprogress: progress.onprogress },
    )) as CallToolResult;
    expect(result.isError).toBe(false);
    expect(textOf(result)).toBe('forty-two');
    const structured = result.structuredContent as {
      status: string;
      answer: string;
      usage: { input_tokens: number; output_tokens: number };
      run_id: string;
    };
    expect(structured).toMatchObject({
      status: 'completed',
      answer: 'forty-two',
      usage: { input_tokens: 11, output_tokens: 7 },
    });
    // The live tree and its usage went out as progress, in order, ending with the root done.
    expect(progress.seen.map((p) => p.progress)).toEqual(progress.seen.map((_, i) => i + 1));
    expect(progress.seen.some((p) => p.message?.includes('0 running'))).toBe(true);
    expect(progress.seen.at(-1)?.message).toMatch(/^0 completed · 18 tokens/);
    // runs.list and runs.show read the run back from the store.
    const listed = (await client.callTool({ name: 'runs.list', arguments: {} })) as CallToolResult;
    expect(textOf(listed)).toContain(structured.run_id);
    const shown = (await client.callTool({
      name: 'runs.show',
      arguments: { run_id: structured.run_id },
    })) as CallToolResult;
    expect(shown.structuredContent).toMatchObject({ status: 'completed', answer: 'forty-two' });
  });

  it('runs arbor.run as a task: created, polled, its result fetched, and kept across a restart', async () => {
    const llm = await fakeLlm({ scripts: [{ steps: [{ ...ANSWER, delay_ms: 300 }] }] });
    const cwd = mcpWorkdir();
    const args = ['--intel', llm.url, '--model', 'm'];
    const first = await connectArborMcp(args, { cwd });
    const created = await first.client.request(
      {
        method: 'tools/call',
        params: { name: 'arbor.run', arguments: { instruction: 'Answer.' }, task: { ttl: 60_000 } },
      },
      CreateTaskResultSchema,
    );
    const { taskId } = created.task;
    expect(created.task.status).toBe('working');
    expect((await first.client.experimental.tasks.getTask(taskId)).status).toBe('working');
    // tasks/result waits for the end.
    const result = await first.client.experimental.tasks.getTaskResult(
      taskId,
      CallToolResultSchema,
    );
    expect(textOf(result)).toBe('forty-two');
    expect((await first.client.experimental.tasks.getTask(taskId)).status).toBe('completed');
    await first.client.close();

    const second = await connectArborMcp(args, { cwd });
    expect((await second.client.experimental.tasks.getTask(taskId)).status).toBe('completed');
    const again = await second.client.experimental.tasks.getTaskResult(
      taskId,
      CallToolResultSchema,
    );
    expect(textOf(again)).toBe('forty-two');
    const { tasks } = await second.client.experimental.tasks.listTasks();
    expect(tasks.map((task) => task.taskId)).toContain(taskId);
  });

  it('runs arbor.plan from TOML text, and from a plan file over stdio', async () => {
    const llm = await fakeLlm({ scripts: [{ steps: [{ text: 'leaf done' }] }] });
    const { client, cwd } = await connectArborMcp(['--intel', llm.url, '--model', 'm']);
    const plan = '[[subtask]]\nid = "only"\ninstruction = "Say done."\n';
    const fromText = (await client.callTool({
      name: 'arbor.plan',
      arguments: { plan },
    })) as CallToolResult;
    expect(fromText.isError).toBe(false);
    expect(fromText.structuredContent).toMatchObject({ status: 'completed' });
    writeFileSync(join(cwd, 'plan.toml'), plan);
    const fromFile = (await client.callTool({
      name: 'arbor.plan',
      arguments: { path: 'plan.toml' },
    })) as CallToolResult;
    expect(fromFile.structuredContent).toMatchObject({ status: 'completed' });
    expect(llm.requests).toHaveLength(2);
  });

  it('cancels a task: tasks/cancel stops the run tree, recorded as cancelled', async () => {
    const llm = await fakeLlm({ scripts: [{ steps: [{ text: 'late', delay_ms: 60_000 }] }] });
    const { client, cwd } = await connectArborMcp(['--intel', llm.url, '--model', 'm']);
    const running = progressUntil((p) => p.message?.includes('0 running') === true);
    const created = await client.request(
      {
        method: 'tools/call',
        params: { name: 'arbor.run', arguments: { instruction: 'Take forever.' }, task: {} },
      },
      CreateTaskResultSchema,
      { onprogress: running.onprogress },
    );
    await running.reached;
    await llm.waitForRequests(1);
    const cancelled = await client.experimental.tasks.cancelTask(created.task.taskId);
    expect(cancelled.status).toBe('cancelled');
    const result = await client.experimental.tasks.getTaskResult(
      created.task.taskId,
      CallToolResultSchema,
    );
    expect(result.isError).toBe(true);
    // The child holding the model call is gone: its connection to the model closes.
    await llm.waitForSocketClose(llm.requests[0]?.socket ?? -1);
    // By the time tasks/cancel answered, the tree had stopped and the run was recorded so.
    const store = storeAt(cwd);
    try {
      const [run] = store.listRuns({ limit: 1 });
      expect(run?.status).toBe('cancelled');
      expect(store.listNodes(run?.id ?? '').map((node) => node.status)).toEqual(['cancelled']);
    } finally {
      store.close();
    }
  });

  it('cancels the run of a blocking call the caller gives up on', async () => {
    const llm = await fakeLlm({ scripts: [{ steps: [{ text: 'late', delay_ms: 60_000 }] }] });
    const { client } = await connectArborMcp(['--intel', llm.url, '--model', 'm']);
    const running = progressUntil((p) => p.message?.includes('0 running') === true);
    const giveUp = new AbortController();
    const call = client.callTool(
      { name: 'arbor.run', arguments: { instruction: 'Take forever.' } },
      CallToolResultSchema,
      { signal: giveUp.signal, onprogress: running.onprogress },
    );
    await running.reached;
    await llm.waitForRequests(1);
    giveUp.abort('the caller gave up');
    await expect(call).rejects.toThrow();
    // The child holding the model call is gone: its connection to the model closes.
    await llm.waitForSocketClose(llm.requests[0]?.socket ?? -1);
    const { tasks } = await client.experimental.tasks.listTasks();
    expect(tasks.map((task) => task.status)).toEqual(['cancelled']);
  });

  it('fails, after a restart, the task whose server died mid-run, saying how to resume its run', async () => {
    const llm = await fakeLlm({ scripts: [{ steps: [{ text: 'late', delay_ms: 60_000 }] }] });
    const cwd = mcpWorkdir();
    const args = ['--intel', llm.url, '--model', 'm'];
    const first = await connectArborMcp(args, { cwd });
    const created = await first.client.request(
      {
        method: 'tools/call',
        params: { name: 'arbor.run', arguments: { instruction: 'Take forever.' }, task: {} },
      },
      CreateTaskResultSchema,
    );
    await llm.waitForRequests(1);
    const gone = new Promise<void>((resolve) => {
      first.client.onclose = resolve;
    });
    process.kill(first.transport.pid ?? 0, 'SIGKILL');
    await gone;

    const second = await connectArborMcp(args, { cwd });
    const task = await second.client.experimental.tasks.getTask(created.task.taskId);
    expect(task.status).toBe('failed');
    expect(task.statusMessage).toMatch(
      /the run is interrupted, and `arbor resume \S+` continues it/,
    );
  });

  it("holds a caller asking for more than the server allows to the server's caps, and says so", async () => {
    const llm = await fakeLlm({ scripts: [{ steps: [ANSWER] }] });
    const { client, cwd } = await connectArborMcp([
      '--intel',
      llm.url,
      '--model',
      'm',
      '--max-tokens',
      '5000',
      '--deadline',
      '2m',
    ]);
    const result = (await client.callTool({
      name: 'arbor.run',
      arguments: {
        instruction: 'Do everything.',
        grant: { fs_read: ['sub'], fs_write: 'all', exec: 'all', net: ['example.com'] },
        budget: { tokens: 1_000_000 },
        deadline_seconds: 3600,
      },
    })) as CallToolResult;
    expect(textOf(result)).toBe('forty-two');
    const { held, run_id: runId } = result.structuredContent as { held: string[]; run_id: string };
    expect(held).toEqual([
      expect.stringMatching(/^grant\.fs_write: asked for "all", given "none"/),
      expect.stringMatching(/^grant\.exec: asked for "all", given "none"/),
      expect.stringMatching(/^grant\.net: asked for example\.com, given "none"/),
      "budget.tokens: asked for 1000000 tokens, given the server's cap of 5000 tokens",
      "deadline_seconds: asked for 3600 s, given the server's cap of 120 s",
    ]);
    expect(textOf({ content: result.content.slice(1) })).toContain("held to the server's cap");
    // The run's root held the narrowed grant: the caller's narrower read, and nothing else.
    const store = storeAt(cwd);
    try {
      const [root] = store.listNodes(runId);
      expect(root?.payload.caveats).toMatchObject({
        fs_read: [join(cwd, 'sub')],
        fs_write: [],
        exec: [],
        net: [],
      });
    } finally {
      store.close();
    }
  });

  it("puts the run's ask_human to the caller as an elicitation, and the answer back to the model", async () => {
    const llm = await fakeLlm({
      scripts: [
        {
          steps: [
            { tool_calls: [{ name: 'ask_human', args: { question: 'Which colour?' } }] },
            { text: 'painted' },
          ],
        },
      ],
    });
    const { client } = await connectArborMcp(['--intel', llm.url, '--model', 'm'], {
      capabilities: { elicitation: { form: {} } },
    });
    const asked: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: { answer: 'Blue.' } };
    });
    const result = (await client.callTool({
      name: 'arbor.run',
      arguments: { instruction: 'Paint it.' },
    })) as CallToolResult;
    expect(textOf(result)).toBe('painted');
    expect(asked).toEqual(['Which colour?']);
    expect(JSON.stringify(llm.requests.at(-1)?.body)).toContain('Blue.');
  });

  it('never puts a security approval (a policy `ask`) to the caller, even one that can elicit', async () => {
    const llm = await fakeLlm({
      scripts: [
        {
          steps: [
            { tool_calls: [{ name: 'fs.read', args: { path: 'notes.txt' } }] },
            { text: 'did not read it' },
          ],
        },
      ],
    });
    const cwd = mcpWorkdir();
    writeFileSync(join(cwd, 'notes.txt'), 'secret notes');
    writeFileSync(
      join(cwd, 'arbor.toml'),
      '[[security.policy]]\nmatch = { tool = "fs.read" }\naction = "ask"\nquestion = "Let it read?"\ntimeout_ms = 300\n',
    );
    const { client } = await connectArborMcp(
      ['--intel', llm.url, '--model', 'm', '--config', 'arbor.toml'],
      { cwd, capabilities: { elicitation: { form: {} } } },
    );
    const asked: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: { answer: 'yes' } };
    });
    const result = (await client.callTool({
      name: 'arbor.run',
      arguments: { instruction: 'Read notes.txt.' },
    })) as CallToolResult;
    expect(textOf(result)).toBe('did not read it');
    expect(asked).toEqual([]);
    // The question was asked (of the operator, not the caller), and nobody approved it.
    const { run_id: runId } = result.structuredContent as { run_id: string };
    const store = storeAt(cwd);
    try {
      const kinds = store.listEvents(runId).map((event) => event.kind);
      expect(kinds).toEqual(expect.arrayContaining(['gate.open', 'policy.answer']));
    } finally {
      store.close();
    }
    expect(JSON.stringify(llm.requests.at(-1)?.body)).not.toContain('secret notes');
  });

  it('cancels the running tasks of a host that disconnects', async () => {
    const llm = await fakeLlm({ scripts: [{ steps: [{ text: 'late', delay_ms: 60_000 }] }] });
    const { client, transport, cwd } = await connectArborMcp(['--intel', llm.url, '--model', 'm']);
    const created = await client.request(
      {
        method: 'tools/call',
        params: { name: 'arbor.run', arguments: { instruction: 'Take forever.' }, task: {} },
      },
      CreateTaskResultSchema,
    );
    await llm.waitForRequests(1);
    const pid = transport.pid;
    await client.close();
    expect(pid).not.toBeNull();
    const store = storeAt(cwd);
    try {
      const task = store.tasks.mcp.get(created.task.taskId);
      expect(task?.status).toBe('cancelled');
      expect(task?.statusMessage).toContain('the MCP host disconnected');
      expect(store.getRun(task?.runId ?? '')?.status).toBe('cancelled');
    } finally {
      store.close();
    }
  });
});
