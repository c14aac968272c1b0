import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ArborError, McpServerSpecSchema } from '../../../src/protocol/index.js';
import { connectMcpServer } from '../../../src/tools/index.js';
import {
  FILESYSTEM_BIN,
  FIXTURE_SERVER,
  freePort,
  httpServer,
  isAlive,
  nodeServer,
} from '../../helpers/mcp-servers.js';

async function failure(promise: Promise<unknown>): Promise<ArborError> {
  const error: unknown = await promise.then(
    () => new Error('expected the connect to fail'),
    (e: unknown) => e,
  );
  if (!(error instanceof ArborError)) throw error;
  return error;
}

describe('connecting a server that does not answer', () => {
  it('fails within `connect_timeout_ms` and kills the process', async () => {
    const spec = nodeServer('silent', ['-e', 'setInterval(() => {}, 1000)'], {
      connect_timeout_ms: 500,
    });
    const started = performance.now();
    const error = await failure(connectMcpServer(spec));
    const elapsed = performance.now() - started;
    expect(error.code).toBe('mcp_unavailable');
    expect(error.details).toMatchObject({ server: 'silent', kind: 'timeout', timeoutMs: 500 });
    expect(error.message).toBe(
      'MCP server `silent` is unavailable: it did not connect and list its tools within 500 ms.',
    );
    // The timeout, plus the SIGTERM step of the shutdown on a loaded machine.
    expect(elapsed).toBeLessThan(500 + 2_500);
    const pid = error.details.pid as number;
    expect(isAlive(pid)).toBe(false);
    expect(error.details.shutdown).toMatchObject({ how: 'terminated' });
  });
});

describe('connect failures name the server and the cause', () => {
  it('a command that does not exist fails fast as `spawn_failed`', async () => {
    const spec = McpServerSpecSchema.parse({ name: 'ghost', command: 'arbor-no-such-command-xyz' });
    const started = performance.now();
    const error = await failure(connectMcpServer(spec));
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(error.code).toBe('mcp_unavailable');
    expect(error.details).toMatchObject({ server: 'ghost', kind: 'spawn_failed', errno: 'ENOENT' });
    expect(error.message).toBe(
      'MCP server `ghost` is unavailable: could not start its command `arbor-no-such-command-xyz` (ENOENT).',
    );
  });

  it('a server that exits at start is `exited`, with its last stderr lines', async () => {
    const missing = join(await mkdtemp(join(tmpdir(), 'arbor-mcp-')), 'does-not-exist');
    const error = await failure(connectMcpServer(nodeServer('files', [FILESYSTEM_BIN, missing])));
    expect(error.details).toMatchObject({ server: 'files', kind: 'exited' });
    expect(error.message).toMatch(
      /^MCP server `files` is unavailable: the server exited before it finished connecting; its last stderr lines: .*None of the specified directories are accessible/,
    );
  });

  it('stderr quoted in an error is scrubbed of the secrets the server was given', async () => {
    const spec = nodeServer(
      'leaky',
      ['-e', 'console.error("token is " + process.env.API_TOKEN); process.exit(1)'],
      {
        env: { API_TOKEN: '{{secret:TOKEN}}' },
      },
    );
    const error = await failure(
      connectMcpServer(spec, { resolveSecret: () => 'super-secret-value' }),
    );
    expect(error.details).toMatchObject({ kind: 'exited' });
    expect(error.message).toContain('token is [redacted]');
    expect(error.message).not.toContain('super-secret-value');
  });

  it('an unresolved secret reference fails before anything is started', async () => {
    const spec = nodeServer('needs-secret', [FIXTURE_SERVER], {
      env: { GITHUB_TOKEN: 'Bearer {{secret:GH}}' },
    });
    const error = await failure(connectMcpServer(spec));
    expect(error.details).toMatchObject({ server: 'needs-secret', kind: 'config' });
    expect(error.message).toBe(
      'MCP server `needs-secret` is unavailable: variable `GITHUB_TOKEN` refers to `{{secret:GH}}`, which is not available (no secret store is configured).',
    );
  });

  it('an HTTP server nobody listens on is `refused`, without its address in the message', async () => {
    const port = await freePort();
    const error = await failure(
      connectMcpServer(httpServer('remote', `http://127.0.0.1:${port}/mcp?key=k-secret`)),
    );
    expect(error.details).toMatchObject({
      server: 'remote',
      kind: 'refused',
      errno: 'ECONNREFUSED',
    });
    expect(error.message).toBe(
      'MCP server `remote` is unavailable: the server could not be reached (ECONNREFUSED).',
    );
  });

  it('a URL with credentials in it is refused before any request', async () => {
    const error = await failure(
      connectMcpServer(httpServer('remote', 'http://user:pw-secret@127.0.0.1:9/mcp')),
    );
    expect(error.details).toMatchObject({ server: 'remote', kind: 'config' });
    expect(error.message).not.toContain('pw-secret');
  });

  it('a cancelled connect rejects with `cancelled` and leaves no process', async () => {
    const controller = new AbortController();
    const spec = nodeServer('slow-start', ['-e', 'setInterval(() => {}, 1000)']);
    const pending = connectMcpServer(spec, { signal: controller.signal, closeGraceMs: 500 });
    controller.abort(new Error('shutting down'));
    const error = await failure(pending);
    expect(error.code).toBe('cancelled');
    expect(error.details).toEqual({ server: 'slow-start' });
    expect(error.message).toBe('Connecting to MCP server `slow-start` was cancelled.');
  });

  it('rejects a bad `closeGraceMs` before starting anything', async () => {
    const error = await failure(
      connectMcpServer(nodeServer('x', [FIXTURE_SERVER]), { closeGraceMs: 0 }),
    );
    expect(error.code).toBe('config');
    expect(error.message).toBe('Expected `closeGraceMs` to be a positive integer (ms), got `0`.');
  });
});
