import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { ArborError, type Dialect } from '../../protocol/index.js';
import { answerRequest, type ScriptState } from './answer-request.js';
import { AnthropicRules } from './anthropic-rules.js';
import { parsePlaybook } from './load-playbook.js';
import { OpenAiPromptCache } from './openai-prompt-cache.js';
import type { Playbook, PlaybookInput } from './playbook.js';
import type { RecordedRequest } from './recorded-request.js';
import { FakeRateLimiter } from './rate-limit.js';
import { RequestLog } from './request-log.js';
import { ResponsesRules } from './responses-rules.js';
import { sendError, sendJson } from './send.js';
import { SocketTracker } from './socket-tracker.js';

export interface FakeLlmOptions {
  /** A playbook value (validated here) or one already validated. */
  playbook: PlaybookInput | Playbook;
  /** Port to bind; default 0, a free one. */
  port?: number;
  /** Address to bind; default `127.0.0.1`. */
  host?: string;
  /** Called once each request has been answered (or failed, or left hanging) with its record. */
  onRequest?: (record: RecordedRequest) => void;
  signal?: AbortSignal;
}

/** A running fake LLM server. */
export interface FakeLlm {
  /** Base URL for clients, with the `/v1` prefix: `http://127.0.0.1:PORT/v1`. */
  readonly url: string;
  /** The bare address, as announced and written to an address file: `http://127.0.0.1:PORT`. */
  readonly origin: string;
  readonly port: number;
  /** Every request received, in order; records fill in as answers go out. */
  readonly requests: readonly RecordedRequest[];
  /** Connections open right now. */
  readonly openSockets: number;
  /** Resolves once `count` requests have arrived in all. */
  waitForRequests(count: number, options?: { signal?: AbortSignal }): Promise<void>;
  /** Resolves when the connection numbered `socket` (see `RecordedRequest.socket`) closes. */
  waitForSocketClose(socket: number, options?: { signal?: AbortSignal }): Promise<void>;
  /** Replaces the playbook (validated first) and restarts the `faults` and rate-limit counters. */
  setPlaybook(playbook: PlaybookInput | Playbook): void;
  /** Stops listening and drops every connection, hung ones included. */
  close(): Promise<void>;
}

const MODEL_PATHS: Readonly<Record<string, Dialect>> = {
  '/v1/chat/completions': 'openai',
  '/chat/completions': 'openai',
  '/v1/messages': 'anthropic',
  '/messages': 'anthropic',
  '/v1/responses': 'openai-responses',
  '/responses': 'openai-responses',
};

function flatHeaders(request: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException): void => {
      const why =
        error.code === 'EADDRINUSE' ? 'the address is in use' : (error.code ?? error.message);
      reject(
        new ArborError('config', `Cannot listen on ${host}:${port}: ${why}.`, { cause: error }),
      );
    };
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : port);
    });
  });
}

/**
 * Starts the fake LLM: an HTTP server on `127.0.0.1` that answers OpenAI chat completions,
 * Anthropic messages and OpenAI Responses API requests (streamed or not) from a playbook, and records every request.
 */
export async function startFakeLlm(options: FakeLlmOptions): Promise<FakeLlm> {
  let playbook = parsePlaybook(options.playbook);
  const host = options.host ?? '127.0.0.1';
  const log = new RequestLog();
  const sockets = new SocketTracker();
  let landings = new Map<string, number>();
  const limiterOf = (p: Playbook): FakeRateLimiter | undefined =>
    p.rate_limit === undefined ? undefined : new FakeRateLimiter(p.rate_limit);
  let rateLimiter = limiterOf(playbook);
  let callIds = 0;
  const responses = new ResponsesRules();
  const openAiCache = new OpenAiPromptCache();
  const anthropic = new AnthropicRules();
  const state = (): ScriptState => ({
    playbook,
    landings,
    rateLimiter,
    openAiCache,
    anthropic,
    nextCallId: () => `call_${++callIds}`,
    responses,
  });

  const handle = async (
    request: IncomingMessage,
    response: ServerResponse,
  ): Promise<RecordedRequest> => {
    const path = new URL(request.url ?? '/', 'http://fake').pathname;
    const dialect = MODEL_PATHS[path] ?? null;
    const record = log.add({
      method: request.method ?? 'GET',
      path,
      dialect,
      headers: flatHeaders(request),
      socket: sockets.idOf(request.socket),
    });
    if (request.method === 'GET' && path === '/__arbor/requests') {
      record.status = 200;
      sendJson(response, 200, log.records);
      return record;
    }
    if (request.method !== 'POST' || dialect === null) {
      record.status = 404;
      record.error = 'not a model endpoint';
      const message = `arbor mock-llm serves POST /v1/chat/completions, POST /v1/messages, POST /v1/responses and GET /__arbor/requests; got ${request.method ?? 'GET'} ${path}.`;
      sendError(response, dialect, 404, message);
      return record;
    }
    await answerRequest(state(), dialect, request, response, record);
    return record;
  };

  const server = createServer((request, response) => {
    handle(request, response).then(options.onRequest, (error: unknown) => {
      // A bug in the fake: answer 500 if still possible, so the test sees it instead of a hang.
      if (!response.headersSent) {
        sendError(response, null, 500, `arbor mock-llm failed: ${String(error)}`);
      } else {
        response.destroy();
      }
    });
  });
  server.on('connection', (socket) => {
    sockets.track(socket);
  });
  const port = await listen(server, options.port ?? 0, host);
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= new Promise((resolve) => {
      log.close();
      server.close(() => {
        resolve();
      });
      sockets.destroyAll();
    });
    return closing;
  };
  if (options.signal?.aborted === true) {
    await close();
    throw new ArborError('cancelled', 'Starting the fake LLM server was cancelled.');
  }

  return {
    url: `${origin}/v1`,
    origin,
    port,
    get requests() {
      return log.records;
    },
    get openSockets() {
      return sockets.openCount;
    },
    waitForRequests: (count, opts = {}) => log.waitFor(count, opts.signal),
    waitForSocketClose: (socket, opts = {}) => sockets.waitForClose(socket, opts.signal),
    setPlaybook: (next) => {
      playbook = parsePlaybook(next);
      landings = new Map();
      rateLimiter = limiterOf(playbook);
    },
    close,
  };
}
