import { Hono, type Context } from 'hono';
import { cors } from 'hono/cors';
import { streamSSE } from 'hono/streaming';
import { A2A_VERSION_HEADER, type AgentCard } from '@a2a-js/sdk';
import {
  JsonRpcTransportHandler,
  ServerCallContext,
  validateVersion,
  type A2ARequestHandler,
} from '@a2a-js/sdk/server';
import { cardJson, JSONRPC_PATH } from './agent-card.js';
import { PRINCIPAL_KEY, SIGNAL_KEY, TRACEPARENT_KEY } from './a2a-handler.js';
import { bodyLimit, DEFAULT_MAX_BODY_BYTES } from './body-limit.js';
import type { Principal, Principals } from './principals.js';
import type { ServeMetrics } from './serve-metrics.js';
import type { McpSessions } from './mcp/mcp-sessions.js';
import type { DashboardEnv } from '../dashboard/routes.js';

/** What the HTTP surface asks of the server. */
interface ServeState {
  /** Why the server is not ready, or undefined when it is. */
  notReady(): string | undefined;
  /** The supervisor's heartbeat: false when its event loop has stalled. */
  alive(): boolean;
}

export interface HttpAppOptions {
  handler: A2ARequestHandler;
  /** The agent card for a caller that reached `host` (the request's `Host`). */
  card(host: string): AgentCard;
  principals: Principals;
  metrics: ServeMetrics;
  state: ServeState;
  /** `Host` values accepted (lower case, with port); undefined accepts any. */
  hosts(): ReadonlySet<string> | undefined;
  /** Browser origins that may call. */
  origins: ReadonlySet<string>;
  publicMetrics: boolean;
  /** The largest request body taken (`[serve] max_body_bytes`; default 4 MiB). */
  maxBodyBytes?: number;
  /** The web dashboard, at `/` and under `/ui/`. */
  dashboard?: Hono<DashboardEnv>;
  /** MCP over Streamable HTTP, at `/mcp`. */
  mcp?: McpSessions;
}

interface Env {
  Variables: { principal: Principal | undefined };
}

/**
 * The HTTP surface of `arbor serve`: the agent card, A2A over JSON-RPC (SSE for streams), health,
 * readiness and metrics. Everything but the probes checks `Host` and `Origin` first (a web page in
 * the user's browser reaching a loopback port by DNS rebinding or a cross-site request is turned
 * away), and everything but the card and the probes needs a principal's bearer token. Every
 * request body is bounded in size and nesting before any route reads it (`bodyLimit`).
 */
export function httpApp(options: HttpAppOptions): Hono<Env> {
  const app = new Hono<Env>();
  const rpc = new JsonRpcTransportHandler(options.handler);

  app.get('/healthz', (c) =>
    options.state.alive() ? c.text('ok\n') : c.text('the supervisor has stalled\n', 503),
  );
  app.get('/readyz', (c) => {
    const why = options.state.notReady();
    return why === undefined ? c.text('ready\n') : c.text(`not ready: ${why}\n`, 503);
  });

  app.use('*', async (c, next) => {
    // The `Host` header as sent (a request made in process has none: its URL's authority).
    const host = (c.req.header('host') ?? new URL(c.req.url).host).toLowerCase();
    const hosts = options.hosts();
    if (hosts !== undefined && !hosts.has(host))
      return c.json({ error: `Host \`${host}\` is not one this server answers to.` }, 421);
    // A browser on one of the configured origins may call; so may the dashboard's own page.
    const origin = c.req.header('origin')?.toLowerCase();
    if (
      origin !== undefined &&
      !options.origins.has(origin) &&
      origin !== new URL(c.req.url).origin
    )
      return c.json({ error: `Origin \`${origin}\` may not call this server.` }, 403);
    c.set('principal', options.principals.authenticate(c.req.header('authorization')));
    await next();
    return undefined;
  });

  // A browser may call from an origin `[serve] allowed_origins` names (its preflight answered).
  app.use(
    '*',
    cors({
      origin: (origin) => (options.origins.has(origin.toLowerCase()) ? origin : null),
      allowHeaders: [
        'authorization',
        'content-type',
        'a2a-version',
        'a2a-extensions',
        'mcp-session-id',
        'mcp-protocol-version',
        'last-event-id',
      ],
      allowMethods: ['GET', 'POST', 'DELETE'],
      exposeHeaders: ['mcp-session-id'],
      maxAge: 600,
    }),
  );

  app.use(
    '*',
    bodyLimit({
      maxBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
      setting: '[serve] max_body_bytes',
      refuse: (c, { status, message }) =>
        c.req.path === JSONRPC_PATH
          ? c.json({ jsonrpc: '2.0', id: null, error: { code: -32600, message } }, status)
          : c.json({ error: message }, status),
    }),
  );

  app.get('/.well-known/agent-card.json', (c) =>
    c.json(cardJson(options.card((c.req.header('host') ?? new URL(c.req.url).host).toLowerCase()))),
  );

  app.get('/metrics', async (c) => {
    const principal = c.get('principal');
    if (!options.publicMetrics && principal?.role !== 'operator')
      return unauthorized(c, 'operator');
    const { contentType, body } = await options.metrics.text();
    return c.body(body, 200, { 'content-type': contentType });
  });

  const mcp = options.mcp;
  if (mcp !== undefined)
    app.all('/mcp', (c) => {
      const principal = c.get('principal');
      if (principal === undefined) return unauthorized(c, 'principal');
      return mcp.handle(c.req.raw, principal);
    });

  if (options.dashboard !== undefined) app.route('/', options.dashboard);

  app.post(JSONRPC_PATH, async (c) => {
    const principal = c.get('principal');
    if (principal === undefined) return unauthorized(c, 'principal');
    const text = await c.req.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (error) {
      return c.json({
        jsonrpc: '2.0',
        id: null,
        error: {
          code: -32700,
          message: `Parse error: ${error instanceof Error ? error.message : String(error)}`,
        },
      });
    }
    const version = c.req.header(A2A_VERSION_HEADER);
    // Ends the readers of a task when the caller goes away, so none is left waiting.
    const gone = new AbortController();
    const context = new ServerCallContext({
      ...(version === undefined ? {} : { requestedVersion: version }),
      state: new Map<string, unknown>([
        [PRINCIPAL_KEY, principal],
        [SIGNAL_KEY, AbortSignal.any([c.req.raw.signal, gone.signal])],
        ...(c.req.header('traceparent') === undefined
          ? []
          : [[TRACEPARENT_KEY, c.req.header('traceparent')] as [string, unknown]]),
      ]),
    });
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      return c.json({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'Invalid Request: expected one JSON-RPC request object.' },
      });
    const request = body as Record<string, unknown>;
    const id = typeof request.id === 'string' || typeof request.id === 'number' ? request.id : null;
    try {
      validateVersion(context.requestedVersion, await options.handler.getAgentCard(), 'JSONRPC');
    } catch (error) {
      return c.json({
        jsonrpc: '2.0',
        id,
        error: JsonRpcTransportHandler.mapToJSONRPCError(error),
      });
    }
    const answer = await rpc.handle(request, context);
    if (!(Symbol.asyncIterator in answer)) return c.json(answer);
    const iterator = answer[Symbol.asyncIterator]();
    let first: IteratorResult<unknown>;
    try {
      first = await iterator.next();
    } catch (error) {
      return c.json({
        jsonrpc: '2.0',
        id,
        error: JsonRpcTransportHandler.mapToJSONRPCError(error),
      });
    }
    return streamSSE(c, async (stream) => {
      stream.onAbort(() => {
        gone.abort();
        void iterator.return(undefined);
      });
      try {
        for (let next = first; next.done !== true; next = await iterator.next())
          await stream.writeSSE({ data: JSON.stringify(next.value) });
      } catch (error) {
        await stream.writeSSE({
          event: 'error',
          data: JSON.stringify({
            jsonrpc: '2.0',
            id,
            error: JsonRpcTransportHandler.mapToJSONRPCError(error),
          }),
        });
      }
    });
  });
  return app;
}

function unauthorized(c: Context<Env>, need: 'operator' | 'principal'): Response {
  const principal = c.get('principal');
  if (principal === undefined)
    return c.json({ error: 'A bearer token is required (Authorization: Bearer TOKEN).' }, 401, {
      'www-authenticate': 'Bearer',
    });
  return c.json({ error: `${principal.name} is not an ${need}.` }, 403);
}
