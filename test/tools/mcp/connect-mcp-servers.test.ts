import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ArborError, McpServerSpecSchema } from '../../../src/protocol/index.js';
import { connectMcpServers } from '../../../src/tools/index.js';
import { FIXTURE_SERVER, isAlive, nodeServer } from '../../helpers/mcp-servers.js';

const missing = (required: boolean) =>
  McpServerSpecSchema.parse({ name: 'missing', command: 'arbor-no-such-command-xyz', required });

const hanging = (required: boolean) =>
  nodeServer('hanging', ['-e', 'setInterval(() => {}, 1000)'], {
    required,
    connect_timeout_ms: 30_000,
  });

describe('connectMcpServers', () => {
  it('connects every server in parallel, one tool source each, in spec order', async () => {
    const set = await connectMcpServers([
      nodeServer('a', [FIXTURE_SERVER]),
      nodeServer('b', [FIXTURE_SERVER]),
    ]);
    try {
      expect(set.sources.map((source) => source.name)).toEqual(['mcp:a', 'mcp:b']);
      expect(set.skipped).toEqual([]);
      expect(set.sources[1]!.tools()[0]!.def.name).toBe('b.echo_meta');
    } finally {
      const pids = set.connections.map((connection) => connection.pid!);
      await set.closeAll();
      expect(pids.map(isAlive)).toEqual([false, false]);
    }
  });

  it('skips an optional server that fails, with the reason', async () => {
    const set = await connectMcpServers([nodeServer('a', [FIXTURE_SERVER]), missing(false)]);
    try {
      expect(set.sources.map((source) => source.name)).toEqual(['mcp:a']);
      expect(set.skipped).toEqual([
        {
          name: 'missing',
          reason:
            'MCP server `missing` is unavailable: could not start its command `arbor-no-such-command-xyz` (ENOENT).',
          error: expect.any(ArborError) as unknown,
        },
      ]);
    } finally {
      await set.closeAll();
    }
  });

  it('rejects when a required server fails, cancelling the others and closing those already up', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'arbor-mcp-'));
    const pidFiles = [join(dir, 'a.pid'), join(dir, 'hanging.pid')];
    const up = nodeServer('a', [FIXTURE_SERVER], { env: { FIXTURE_PID_FILE: pidFiles[0]! } });
    const slow = nodeServer(
      'hanging',
      [
        '-e',
        'require("fs").writeFileSync(process.argv[1], String(process.pid)); setInterval(() => {}, 1000)',
        pidFiles[1]!,
      ],
      { required: false, connect_timeout_ms: 30_000 },
    );
    // Fails (exits) only once the other two are running, so there is something to clean up.
    const failing = nodeServer('failing', [
      '-e',
      'const fs = require("fs"); setInterval(() => { if (process.argv.slice(1).every((f) => fs.existsSync(f))) process.exit(1); }, 20)',
      ...pidFiles,
    ]);
    const started = performance.now();
    const error: unknown = await connectMcpServers([up, slow, failing], {
      closeGraceMs: 500,
    }).catch((e: unknown) => e);
    // The hanging server's 30 s connect timeout was not waited out.
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(error).toBeInstanceOf(ArborError);
    expect(error).toMatchObject({
      code: 'mcp_unavailable',
      details: { server: 'failing', kind: 'exited' },
    });
    const pids = await Promise.all(
      pidFiles.map(async (file) => Number(await readFile(file, 'utf8'))),
    );
    expect(pids.map(isAlive)).toEqual([false, false]);
  });

  it('refuses two servers with one name before starting either', async () => {
    const error: unknown = await connectMcpServers([missing(true), missing(false)]).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({
      code: 'config',
      message:
        'Expected MCP server names to be unique (they prefix tool names), got `missing` twice.',
    });
  });

  it('rejects with `cancelled` when its signal aborts', async () => {
    const controller = new AbortController();
    const pending = connectMcpServers([hanging(true)], {
      signal: controller.signal,
      closeGraceMs: 500,
    });
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: 'cancelled' });
  });
});
