import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { McpServerSpecSchema, type McpServerSpec } from '../../src/protocol/index.js';

const require = createRequire(import.meta.url);

/** The entry file of an installed server package, from its `bin` (never `npx`: no download). */
function binOf(pkg: string, bin: string): string {
  const manifestPath = require.resolve(`${pkg}/package.json`);
  const manifest = require(manifestPath) as { bin: Record<string, string> };
  const entry = manifest.bin[bin];
  if (entry === undefined) throw new Error(`${pkg} has no bin \`${bin}\``);
  return join(dirname(manifestPath), entry);
}

/** `node <this> [stdio|streamableHttp]`. */
export const EVERYTHING_BIN = binOf(
  '@modelcontextprotocol/server-everything',
  'mcp-server-everything',
);
/** `node <this> <allowed-dir>…`. */
export const FILESYSTEM_BIN = binOf(
  '@modelcontextprotocol/server-filesystem',
  'mcp-server-filesystem',
);
/** `node <this> [http]`: see the file's header. */
export const FIXTURE_SERVER = fileURLToPath(
  new URL('../fixtures/mcp/fixture-server.mjs', import.meta.url),
);

/** A parsed spec (defaults filled in) for a stdio server run by this Node. */
export function nodeServer(
  name: string,
  args: string[],
  extra: Partial<Omit<McpServerSpec, 'name' | 'command' | 'args'>> = {},
): McpServerSpec {
  return McpServerSpecSchema.parse({ name, command: process.execPath, args, ...extra });
}

/** A parsed spec for a Streamable HTTP server. */
export function httpServer(
  name: string,
  url: string,
  extra: Partial<Omit<McpServerSpec, 'name' | 'url'>> = {},
): McpServerSpec {
  return McpServerSpecSchema.parse({ name, url, ...extra });
}

/** Is a process with this id still there? */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A TCP port nothing listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => {
        resolve(port);
      });
    });
  });
}

export interface HttpServerProcess {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Starts an HTTP MCP server as a process and resolves once its stderr says it listens (`listening
 * <port>` or `listening on port <port>`), with the URL of its `/mcp` endpoint.
 */
export function startHttpServer(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  timeoutMs = 15_000,
): Promise<HttpServerProcess> {
  const child = spawn(process.execPath, args, {
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => {
      resolve();
    });
  });
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  };
  return new Promise((resolve, reject) => {
    let stderr = '';
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`HTTP server did not start within ${timeoutMs} ms: ${stderr}`));
    }, timeoutMs);
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr += chunk;
      const port = /listening (?:on port )?(\d+)/.exec(stderr)?.[1];
      if (port !== undefined) {
        clearTimeout(timer);
        resolve({ url: `http://127.0.0.1:${port}/mcp`, child, stop });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`HTTP server exited with ${code}: ${stderr}`));
    });
  });
}
