import { Hono, type Context } from 'hono';
import { cors } from 'hono/cors';
import type { AgentCard } from '@a2a-js/sdk';
import {
  JsonRpcTransportHandler,
  validateVersion,
  type A2ARequestHandler,
} from '@a2a-js/sdk/server';
import { CARD_PATH, cardJson, JSONRPC_PATH, REST_PATH } from './agent-card.js';
import { cardResponse } from './card-response.js';
import { bodyLimit, DEFAULT_MAX_BODY_BYTES } from './body-limit.js';
import { BEARER_REQUIRED, callContext, type PrincipalEnv as Env } from './call-context.js';
import type { Principals } from './principals.js';
import { restError, restRoutes } from './rest-routes.js';
import type { ServeMetrics } from './serve-metrics.js';
import { sseAnswer } from './sse-answer.js';
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

/**
 * The HTTP surface of `arbor serve`: the agent card, A2A over JSON-RPC and over HTTP+JSON (one
 * handler, one call context; SSE for streams), health, readiness and metrics. Everything but the
 * probes checks `Host` and `Origin` first (a web page in the user's browser reaching a loopback
 * port by DNS rebinding or a cross-site request is turned away), and everything but the card and
 * the probes needs a principal's bearer token. Every request body is bounded in size and nesting
 * before any route reads it (`bodyLimit`).
 */
export function httpApp(options: HttpAppOptions): Hono<Env> {
  const app = new Hono<Env>();
  const rpc = new JsonRpcTransportHandler(options.handler);
  // The card's `Last-Modified`: it changes only when the server starts on a new configuration.
  const startedAt = new Date();

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
      refuse: (c, { status, message }) => {
        if (c.req.path.replace(/\/$/, '') === JSONRPC_PATH)
          return c.json({ jsonrpc: '2.0', id: null, error: { code: -32600, message } }, status);
        if (c.req.path.startsWith(`${REST_PATH}/`)) return restError(status, message);
        return c.json({ error: message }, status);
      },
    }),
  );

  // A client may add a trailing slash to any A2A path.
  app.on('GET', [CARD_PATH, `${CARD_PATH}/`], (c) =>
    cardResponse(
      c.req.raw,
      cardJson(options.card((c.req.header('host') ?? new URL(c.req.url).host).toLowerCase())),
      startedAt,
    ),
  );

  app.get('/metrics', async (c) => {
    const principal = c.get('principal');
    if (!options.publicMetrics && principal?.role !== 'operator')
      return unauthorized(c, 'operator');
    const { contentType, body } = await options.metrics.text();
    return c.body(body, 200, { 'content-type': contentType });
  });

  app.route('/', restRoutes(options.handler));
  const mcp = options.mcp;
  if (mcp !== undefined)
    app.all('/mcp', (c) => {
      const principal = c.get('principal');
      if (principal === undefined) return unauthorized(c, 'principal');
      return mcp.handle(c.req.raw, principal);
    });

  if (options.dashboard !== undefined) app.route('/', options.dashboard);

  app.on('POST', [JSONRPC_PATH, `${JSONRPC_PATH}/`], async (c) => {
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
    const { context, gone } = callContext(c.req.raw, principal);
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      return c.json({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'Invalid Request: expected one JSON-RPC request object.' },
      });
    const request = body as Record<string, unknown>;
    const id = typeof request.id === 'string' || typeof request.id === 'number' ? request.id : null;
    const rpcError = (error: unknown) => ({
      jsonrpc: '2.0',
      id,
      error: JsonRpcTransportHandler.mapToJSONRPCError(error),
    });
    try {
      validateVersion(context.requestedVersion, await options.handler.getAgentCard(), 'JSONRPC');
    } catch (error) {
      return c.json(rpcError(error));
    }
    const answer = await rpc.handle(request, context);
    if (!(Symbol.asyncIterator in answer)) return c.json(answer);
    return sseAnswer(c, answer, gone, {
      event: (value) => value,
      error: rpcError,
      refuse: (error) => c.json(rpcError(error)),
    });
  });
  return app;
}

function unauthorized(c: Context<Env>, need: 'operator' | 'principal'): Response {
  const principal = c.get('principal');
  if (principal === undefined)
    return c.json({ error: BEARER_REQUIRED }, 401, {
      'www-authenticate': 'Bearer',
    });
  return c.json({ error: `${principal.name} is not an ${need}.` }, 403);
}
