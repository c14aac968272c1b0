import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import {
  ClientFactory,
  ClientFactoryOptions,
  JsonRpcTransportFactory,
  RestTransportFactory,
  type Client,
} from '@a2a-js/sdk/client';
import { resolveRunSettings, type RunFlags, type ServeTable } from '../../src/config/index.js';
import { resolveCredentials } from '../../src/intel/index.js';
import { startServer, type RunningServer } from '../../src/serve/index.js';
import type { PlaybookInput } from '../../src/testing/index.js';
import { ArborProcess } from './arbor-process.js';
import { fakeLlm } from './fake-llm.js';

const servers: RunningServer[] = [];
const processes: ArborProcess[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
  for (const server of processes.splice(0)) server.signal('SIGKILL');
});

/** An `arbor serve` in this process on a fake LLM answering `playbook`, closed after the test. */
export async function serveInProcess(
  playbook: PlaybookInput,
  options: {
    serve?: ServeTable;
    env?: NodeJS.ProcessEnv;
    tokenFile?: string;
    host?: string;
    /** More `arbor run` flags (`mcp`, …). */
    flags?: RunFlags;
    warn?: (line: string) => void;
  } = {},
) {
  const llm = await fakeLlm(playbook);
  const env = { ...options.env };
  const settings = resolveRunSettings(
    '(each task says)',
    {
      intel: llm.url,
      model: 'scripted',
      db: ':memory:',
      sandbox: 'off',
      exec: 'none',
      ...options.flags,
    },
    env,
  );
  const intelligence = resolveCredentials(settings.intelligence ?? fail(), env);
  const server = await startServer({
    settings,
    intelligence,
    env,
    serve: options.serve,
    host: options.host ?? '127.0.0.1',
    port: 0,
    tokenFile: options.tokenFile,
    cwd: process.cwd(),
    ...(options.warn === undefined ? {} : { warn: options.warn }),
  });
  servers.push(server);
  return { llm, server };
}

/** The real `arbor serve` CLI as a process on a free port; killed after the test. */
export async function serveProcess(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; unreaped?: boolean } = {},
) {
  // The operator token goes to the user's state directory: a fresh one, not the home of whoever
  // runs the tests.
  const state = mkdtempSync(join(tmpdir(), 'arbor-state-'));
  const proc = new ArborProcess(['serve', '--listen', '127.0.0.1:0', ...args], {
    ...options,
    env: { ARBOR_STATE_DIR: state, ...options.env },
  });
  processes.push(proc);
  const [, url = ''] = await proc.waitForStderr(/serving A2A at (\S+)/);
  const token = /operator token \(written to [^)]*\): (\S+)/.exec(proc.stderr)?.[1];
  return { proc, url, token: token ?? '' };
}

/** A part, task and JSON-RPC answer as the protocol's JSON writes them (what tests read of them). */
export interface PartJson {
  text?: string;
  data?: unknown;
}
export interface TaskJson {
  id: string;
  contextId: string;
  status: { state: string; message?: { parts: PartJson[]; metadata?: Record<string, unknown> } };
  artifacts?: { parts: PartJson[] }[];
  history?: unknown[];
  metadata?: Record<string, unknown>;
}
export interface RpcAnswer {
  result?: TaskJson & { task?: TaskJson; tasks?: TaskJson[] };
  error?: { code: number; message: string };
}

/** A JSON-RPC request body. */
export function rpc(method: string, params: unknown, id: number | string = 1): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method, params });
}

/** Calls a running server's JSON-RPC endpoint over HTTP with a token. */
export async function callRpc(
  url: string,
  token: string,
  method: string,
  params: unknown,
): Promise<RpcAnswer> {
  const response = await fetch(`${url}/a2a/jsonrpc`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'a2a-version': '1.0' },
    body: rpc(method, params),
  });
  return (await response.json()) as RpcAnswer;
}

/** A POST of a JSON-RPC call to a server's A2A endpoint, with a token when given. */
export function rpcRequest(
  base: string,
  body: string,
  token?: string,
  headers: Record<string, string> = {},
): Request {
  return new Request(`${base}/a2a/jsonrpc`, {
    method: 'POST',
    body,
    headers: {
      'content-type': 'application/json',
      'a2a-version': '1.0',
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      ...headers,
    },
  });
}

/** A user message, as the protocol's JSON writes it. */
export function userMessage(
  text: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    messageId: `m-${Math.random().toString(36).slice(2)}`,
    role: 'ROLE_USER',
    parts: [{ text }],
    ...extra,
  };
}

/** The two A2A bindings `arbor serve` speaks, as its card names them. */
export type Binding = 'JSONRPC' | 'HTTP+JSON';

/**
 * The A2A SDK's own client for a server, sending `token`, over `binding` (JSON-RPC unless told).
 * Each URL it calls is put in `called`, when given.
 */
export async function sdkClient(
  url: string,
  token: string,
  binding: Binding = 'JSONRPC',
  called?: string[],
): Promise<Client> {
  const authFetch: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('authorization', `Bearer ${token}`);
    called?.push(input instanceof Request ? input.url : String(input));
    return fetch(input, { ...init, headers });
  };
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      // The options classes are not exported; a plain object of its one field is what each holds.
      transports: [
        // eslint-disable-next-line @typescript-eslint/no-unsafe-class-instance-assignment
        new JsonRpcTransportFactory({ fetchImpl: authFetch }),
        // eslint-disable-next-line @typescript-eslint/no-unsafe-class-instance-assignment
        new RestTransportFactory({ fetchImpl: authFetch }),
      ],
      preferredTransports: [binding],
    }),
  );
  return factory.createFromUrl(url);
}

function fail(): never {
  throw new Error('no intelligence');
}
