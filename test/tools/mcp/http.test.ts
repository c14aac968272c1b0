import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ArborError } from '../../../src/protocol/index.js';
import { McpToolSource, connectMcpServer, type ToolCallContext } from '../../../src/tools/index.js';
import {
  EVERYTHING_BIN,
  FIXTURE_SERVER,
  freePort,
  httpServer,
  startHttpServer,
  type HttpServerProcess,
} from '../../helpers/mcp-servers.js';

const TOKEN = 'Bearer fixture-token-1234';

function context(): ToolCallContext {
  return {
    signal: new AbortController().signal,
    callId: 'call-1',
    meta: { runId: 'run-1', nodeId: '0', idempotencyKey: 'run-1/0#1.0' },
  };
}

describe('server-everything over Streamable HTTP', () => {
  let server: HttpServerProcess;

  beforeAll(async () => {
    server = await startHttpServer([EVERYTHING_BIN, 'streamableHttp'], {
      PORT: String(await freePort()),
    });
  });

  afterAll(async () => {
    await server.stop();
  });

  it('connects, lists and calls a tool, then ends the session', async () => {
    const connection = await connectMcpServer(httpServer('remote', server.url));
    try {
      expect(connection.transport).toBe('http');
      expect(connection.pid).toBeUndefined();
      const source = new McpToolSource(connection);
      const echo = source.tools().find((tool) => tool.def.name === 'remote.echo')!;
      expect(await echo.run({ message: 'over http' }, context())).toEqual({
        content: 'Echo: over http',
        isError: false,
      });
    } finally {
      expect(await connection.close()).toMatchObject({ how: 'disconnected' });
    }
  });
});

describe('the fixture server over Streamable HTTP, behind a bearer token', () => {
  let server: HttpServerProcess;

  beforeAll(async () => {
    server = await startHttpServer([FIXTURE_SERVER, 'http'], { FIXTURE_EXPECT_AUTH: TOKEN });
  });

  afterAll(async () => {
    await server.stop();
  });

  it('sends headers resolved from secret references, and `_meta` on calls', async () => {
    const spec = httpServer('fx', server.url, {
      headers: { Authorization: 'Bearer {{secret:FX_TOKEN}}' },
    });
    const connection = await connectMcpServer(spec, {
      resolveSecret: (name) => (name === 'FX_TOKEN' ? 'fixture-token-1234' : undefined),
    });
    try {
      const source = new McpToolSource(connection);
      const echo = source.tools().find((tool) => tool.def.name === 'fx.echo_meta')!;
      expect(await echo.run({}, context())).toEqual({
        content: {
          meta: {
            'arbor/run_id': 'run-1',
            'arbor/node_id': '0',
            'arbor/idempotency_key': 'run-1/0#1.0',
          },
        },
        isError: false,
      });
    } finally {
      await connection.close();
    }
  });

  it('picks up `list_changed` sent over the session stream at refresh', async () => {
    const spec = httpServer('fx', server.url, { headers: { Authorization: TOKEN } });
    const connection = await connectMcpServer(spec);
    try {
      const source = new McpToolSource(connection);
      await source
        .tools()
        .find((tool) => tool.def.name === 'fx.add_tool')!
        .run({}, context());
      await expect.poll(() => connection.isStale).toBe(true);
      await source.refresh({ signal: new AbortController().signal });
      expect(source.tools().map((tool) => tool.def.name)).toContain('fx.late_tool');
    } finally {
      await connection.close();
    }
  });

  it('fails as `http_status` on a refused credential, without quoting it', async () => {
    const spec = httpServer('fx', server.url, {
      headers: { Authorization: 'Bearer wrong-token-5678' },
    });
    const error: unknown = await connectMcpServer(spec).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ArborError);
    const failure = error as ArborError;
    expect(failure.code).toBe('mcp_unavailable');
    expect(failure.details).toEqual({ server: 'fx', kind: 'http_status', status: 401 });
    expect(failure.message).toBe(
      'MCP server `fx` is unavailable: the server answered HTTP 401; check its `headers`.',
    );
  });
});
