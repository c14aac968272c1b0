import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { FAST_ENV } from './arbor-process.js';
import { ARBOR_BIN } from './run-arbor.js';

/** A connected MCP client of a real `arbor mcp` process, and what that process wrote on stderr. */
export interface ArborMcpClient {
  client: Client;
  transport: StdioClientTransport;
  stderr: () => string;
  cwd: string;
}

const open: ArborMcpClient[] = [];

afterEach(async () => {
  await Promise.all(open.splice(0).map((connected) => connected.client.close()));
});

/** A fresh working directory for a server's store. */
export function mcpWorkdir(): string {
  return mkdtempSync(join(tmpdir(), 'arbor-mcp-e2e-'));
}

/** Starts the built `arbor mcp` with these arguments and connects the MCP SDK's client to it. */
export async function connectArborMcp(
  args: string[],
  options: { cwd?: string; capabilities?: ClientCapabilities } = {},
): Promise<ArborMcpClient> {
  const cwd = options.cwd ?? mcpWorkdir();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [ARBOR_BIN, 'mcp', '--sandbox', 'off', ...args],
    cwd,
    env: Object.fromEntries(
      Object.entries({ ...process.env, ...FAST_ENV }).filter(
        (entry): entry is [string, string] => entry[1] !== undefined,
      ),
    ),
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const client = new Client(
    { name: 'arbor-e2e', version: '1.0.0' },
    { capabilities: options.capabilities ?? {} },
  );
  await client.connect(transport);
  const connected = { client, transport, stderr: () => stderr, cwd };
  open.push(connected);
  return connected;
}
