import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpToolSource, connectMcpServer, type McpConnection } from '../../../src/tools/index.js';
import type { Tool, ToolCallContext } from '../../../src/tools/index.js';
import { EVERYTHING_BIN, isAlive, nodeServer } from '../../helpers/mcp-servers.js';

function context(): ToolCallContext {
  return { signal: new AbortController().signal, callId: 'call-1' };
}

function toolNamed(source: McpToolSource, name: string): Tool {
  const tool = source.tools().find((t) => t.def.name === name);
  if (tool === undefined) throw new Error(`no tool ${name}`);
  return tool;
}

describe('server-everything over stdio', () => {
  let connection: McpConnection;
  let source: McpToolSource;

  beforeAll(async () => {
    connection = await connectMcpServer(
      nodeServer('everything', [EVERYTHING_BIN, 'stdio'], {
        env: {
          GREETING: 'hello',
          API_TOKEN: '{{secret:TOKEN}}',
          FROM_ENV: '{{env:ARBOR_TEST_FROM}}',
        },
      }),
      {
        env: { ...process.env, ARBOR_TEST_FROM: 'from-env', ARBOR_TEST_LEAK: 'must-not-leak' },
        resolveSecret: (name) => (name === 'TOKEN' ? 'tok-123456' : undefined),
      },
    );
    source = new McpToolSource(connection);
  });

  afterAll(async () => {
    await connection.close();
  });

  it('lists its tools under `everything.` with their descriptions and input schemas', () => {
    const names = source.tools().map((tool) => tool.def.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'everything.echo',
        'everything.get-sum',
        'everything.get-structured-content',
      ]),
    );
    expect(source.kind).toBe('mcp');
    expect(source.name).toBe('mcp:everything');
    const echo = toolNamed(source, 'everything.echo');
    expect(echo.def.description).toMatch(/echo/i);
    expect(echo.def.input_schema).toMatchObject({
      type: 'object',
      properties: { message: { type: 'string' } },
    });
    expect(source.routes()['everything.get-sum']).toEqual({
      server: 'everything',
      tool: 'get-sum',
    });
    expect(connection.serverInfo?.name).toBe('mcp-servers/everything');
  });

  it('calls a tool and returns its text', async () => {
    const out = await toolNamed(source, 'everything.echo').run({ message: 'hi there' }, context());
    expect(out).toEqual({ content: 'Echo: hi there', isError: false });
    const sum = await toolNamed(source, 'everything.get-sum').run({ a: 2, b: 40 }, context());
    expect(sum.content).toMatch(/is 42/);
  });

  it('returns structured content as the value when the tool gives one', async () => {
    const out = await toolNamed(source, 'everything.get-structured-content').run(
      { location: 'Chicago' },
      context(),
    );
    expect(out).toEqual({
      content: { temperature: 36, conditions: 'Light rain / drizzle', humidity: 82 },
      isError: false,
    });
  });

  it('reports bad arguments as a tool error the model can read', async () => {
    const out = await toolNamed(source, 'everything.get-sum').run({ a: 'two' }, context());
    expect(out.isError).toBe(true);
    expect(out.content).toMatch(/get-sum/);
  });

  it('summarises binary content instead of inlining it', async () => {
    const out = await toolNamed(source, 'everything.get-tiny-image').run({}, context());
    expect(out.isError).toBe(false);
    expect(out.content).toMatch(/\[image: image\/png, \d+ bytes\]/);
  });

  it('starts the server with a minimal environment plus its resolved `env`', async () => {
    const out = await toolNamed(source, 'everything.get-env').run({}, context());
    const env = JSON.parse(out.content as string) as Record<string, string>;
    expect(env).toMatchObject({
      GREETING: 'hello',
      API_TOKEN: 'tok-123456',
      FROM_ENV: 'from-env',
      PATH: process.env.PATH,
    });
    expect(env.ARBOR_TEST_LEAK).toBeUndefined();
    expect(env.ARBOR_TEST_FROM).toBeUndefined();
  });
});

describe('closing a stdio server', () => {
  it('ends its process, once, however often it is called', async () => {
    const connection = await connectMcpServer(nodeServer('everything', [EVERYTHING_BIN]));
    const pid = connection.pid;
    expect(pid).toBeTypeOf('number');
    expect(isAlive(pid!)).toBe(true);
    const [first, second] = await Promise.all([connection.close(), connection.close()]);
    expect(first).toBe(second);
    expect(['exited', 'terminated', 'killed']).toContain(first.how);
    expect(isAlive(pid!)).toBe(false);
    expect(connection.isClosed).toBe(true);
    const after = await new McpToolSource(connection).tools()[0]!.run({ message: 'x' }, context());
    expect(after.isError).toBe(true);
    expect(after.content).toMatch(/no longer connected/);
  });
});
