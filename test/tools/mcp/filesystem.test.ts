import { mkdir, mkdtemp, realpath, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  McpToolSource,
  connectMcpServer,
  type McpConnection,
  type Tool,
} from '../../../src/tools/index.js';
import { FILESYSTEM_BIN, nodeServer } from '../../helpers/mcp-servers.js';

const context = () => ({ signal: new AbortController().signal, callId: 'call-1' });

describe('server-filesystem over stdio', () => {
  let root: string;
  let allowed: string;
  let connection: McpConnection;
  let source: McpToolSource;
  const tool = (name: string): Tool => source.tools().find((t) => t.def.name === `fs.${name}`)!;

  beforeAll(async () => {
    root = await realpath(await mkdtemp(join(tmpdir(), 'arbor-mcp-fs-')));
    allowed = join(root, 'allowed');
    await mkdir(join(allowed, 'notes'), { recursive: true });
    await writeFile(join(allowed, 'notes', 'todo.txt'), 'buy milk\n');
    await writeFile(join(root, 'secret.txt'), 'outside the sandbox\n');
    connection = await connectMcpServer(nodeServer('fs', [FILESYSTEM_BIN, allowed]));
    source = new McpToolSource(connection);
  });

  afterAll(async () => {
    await connection.close();
  });

  it('lists and reads files inside the allowed directory', async () => {
    const listing = await tool('list_directory').run({ path: join(allowed, 'notes') }, context());
    // The server declares an output schema, so its answer is the structured value.
    expect(listing).toEqual({ content: { content: '[FILE] todo.txt' }, isError: false });
    const read = await tool('read_text_file').run(
      { path: join(allowed, 'notes', 'todo.txt') },
      context(),
    );
    expect(read).toEqual({ content: { content: 'buy milk\n' }, isError: false });
  });

  it('refuses a path outside the allowed directory, as a tool error', async () => {
    const read = await tool('read_text_file').run({ path: join(root, 'secret.txt') }, context());
    expect(read.isError).toBe(true);
    expect(read.content).toMatch(/access denied|outside allowed directories/i);
    expect(JSON.stringify(read.content)).not.toContain('outside the sandbox');
  });
});
