import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isArborError } from '../../../src/protocol/index.js';
import {
  MCP_META_KEYS,
  McpToolSource,
  connectMcpServer,
  type McpConnection,
  type Tool,
  type ToolCallContext,
} from '../../../src/tools/index.js';
import { FIXTURE_SERVER, isAlive, nodeServer } from '../../helpers/mcp-servers.js';

function context(signal = new AbortController().signal): ToolCallContext {
  return {
    signal,
    callId: 'call-1',
    meta: {
      runId: 'run-7',
      nodeId: '0.2',
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      idempotencyKey: 'run-7/0.2#3.0',
    },
  };
}

function toolNamed(source: McpToolSource, name: string): Tool {
  const tool = source.tools().find((t) => t.def.name === name);
  if (tool === undefined) throw new Error(`no tool ${name}`);
  return tool;
}

describe('the fixture server over stdio', () => {
  let connection: McpConnection;
  let source: McpToolSource;
  const announced: string[] = [];

  beforeAll(async () => {
    connection = await connectMcpServer(nodeServer('fx', [FIXTURE_SERVER]), {
      onListChanged: () => announced.push('fx'),
    });
    source = new McpToolSource(connection, { callTimeoutMs: 5_000 });
  });

  afterAll(async () => {
    await connection.close();
  });

  it('follows `nextCursor` to list every page of tools', () => {
    expect(source.tools().map((t) => t.def.name)).toEqual([
      'fx.echo_meta',
      'fx.slow',
      'fx.cancelled_count',
      'fx.fail',
      'fx.throw',
      'fx.image',
      'fx.add_tool',
      'fx.crash',
      expect.stringMatching(/^fx\.bad_name_-[0-9a-f]{6}$/),
    ]);
    expect(connection.isStale).toBe(false);
  });

  it('stamps `_meta` with the run, node, trace parent and idempotency key', async () => {
    const out = await toolNamed(source, 'fx.echo_meta').run({}, context());
    expect(out).toEqual({
      content: {
        meta: {
          [MCP_META_KEYS.runId]: 'run-7',
          [MCP_META_KEYS.nodeId]: '0.2',
          [MCP_META_KEYS.traceparent]: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
          [MCP_META_KEYS.idempotencyKey]: 'run-7/0.2#3.0',
        },
      },
      isError: false,
    });
    expect(MCP_META_KEYS).toEqual({
      runId: 'arbor/run_id',
      nodeId: 'arbor/node_id',
      traceparent: 'traceparent',
      idempotencyKey: 'arbor/idempotency_key',
    });
  });

  it('sends no arbor `_meta` for a call without correlation', async () => {
    const out = await toolNamed(source, 'fx.echo_meta').run(
      {},
      { signal: new AbortController().signal, callId: 'c' },
    );
    expect(out.content).toEqual({ meta: null });
  });

  it('calls a sanitised name under the tool’s own name on the server', async () => {
    const bad = source.tools().find((t) => t.def.name.startsWith('fx.bad_name'))!;
    expect(source.routes()[bad.def.name]).toEqual({ server: 'fx', tool: 'bad name!' });
    expect(await bad.run({}, context())).toEqual({ content: 'bad name called', isError: false });
  });

  it.each([
    ['fx.fail', /^it broke$/],
    ['fx.throw', /Tool `fx.throw` failed: .*thrown on purpose/],
  ])('turns `%s` into a tool error, not a throw', async (name, message) => {
    const out = await toolNamed(source, name).run({}, context());
    expect(out.isError).toBe(true);
    expect(out.content).toMatch(message);
  });

  it('joins text and summarises an image', async () => {
    const out = await toolNamed(source, 'fx.image').run({}, context());
    expect(out).toEqual({ content: 'a picture:\n[image: image/png, 10 bytes]', isError: false });
  });

  it('picks up a new tool only at refresh, after `list_changed`', async () => {
    const before = source.tools();
    await toolNamed(source, 'fx.add_tool').run({}, context());
    await expect.poll(() => connection.isStale).toBe(true);
    expect(announced).toEqual(['fx']);
    // Mid-turn, the list the model sees does not move.
    expect(source.tools()).toBe(before);
    expect(source.tools().map((t) => t.def.name)).not.toContain('fx.late_tool');
    await source.refresh({ signal: new AbortController().signal });
    expect(connection.isStale).toBe(false);
    const late = toolNamed(source, 'fx.late_tool');
    expect(await late.run({}, context())).toEqual({ content: 'late', isError: false });
    // A refresh with nothing announced does not list again.
    const version = connection.listVersion;
    expect(await connection.refresh()).toBe(false);
    expect(connection.listVersion).toBe(version);
  });

  it('cancels a call on the server when the caller aborts, and rethrows', async () => {
    const count = async (): Promise<string> =>
      (await toolNamed(source, 'fx.cancelled_count').run({}, context())).content as string;
    const before = Number(await count());
    const controller = new AbortController();
    // The request is written before `run` first awaits, so the cancellation follows it.
    const call = toolNamed(source, 'fx.slow').run({}, context(controller.signal));
    controller.abort(new Error('user interrupt'));
    const error: unknown = await call.catch((e: unknown) => e);
    expect(isArborError(error, 'cancelled')).toBe(true);
    await expect.poll(count).toBe(String(before + 1));
    // The connection is still usable.
    expect((await toolNamed(source, 'fx.echo_meta').run({}, context())).isError).toBe(false);
  });

  it('refuses to start a call whose signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      toolNamed(source, 'fx.echo_meta').run({}, context(controller.signal)),
    ).rejects.toMatchObject({
      code: 'cancelled',
    });
  });

  it('turns a call past its timeout into a tool error', async () => {
    const quick = new McpToolSource(connection, { callTimeoutMs: 100 });
    const out = await toolNamed(quick, 'fx.slow').run({ ms: 5_000 }, context());
    expect(out).toEqual({
      content: 'Tool `fx.slow` did not answer within 100 ms; the call was cancelled.',
      isError: true,
    });
  });
});

describe('a stdio server that dies mid-session', () => {
  it('makes its tools answer with an error the model can read', async () => {
    const connection = await connectMcpServer(nodeServer('fx', [FIXTURE_SERVER]));
    const source = new McpToolSource(connection);
    try {
      await toolNamed(source, 'fx.crash').run({}, context());
      await expect.poll(() => connection.isClosed).toBe(true);
      const out = await toolNamed(source, 'fx.echo_meta').run({}, context());
      expect(out).toEqual({
        content: 'Tool `fx.echo_meta` is unavailable: MCP server `fx` is no longer connected.',
        isError: true,
      });
      const refresh = connection.refresh();
      await expect(refresh).resolves.toBe(false);
    } finally {
      expect((await connection.close()).how).toBe('already_exited');
    }
  });
});

describe('closing a server that ignores stdin EOF and SIGTERM', () => {
  it.each([
    ['a well-behaved server exits on stdin EOF', {}, 'exited'],
    ['a stubborn one takes SIGKILL', { FIXTURE_STUBBORN: '1' }, 'killed'],
  ])('%s', async (_title, env, how) => {
    const connection = await connectMcpServer(nodeServer('fx', [FIXTURE_SERVER], { env }), {
      closeGraceMs: 300,
    });
    const pid = connection.pid!;
    const outcome = await connection.close();
    expect(outcome.how).toBe(how);
    expect(isAlive(pid)).toBe(false);
  });
});
