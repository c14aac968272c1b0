import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { Hono } from 'hono';
import { ArborError } from '../protocol/index.js';
import { SqliteStore } from '../store/index.js';
import { dashboardApp } from '../dashboard/routes.js';
import { OneTimeToken, Sessions } from '../dashboard/sessions.js';
import { bodyLimit, DEFAULT_MAX_BODY_BYTES } from './body-limit.js';
import { allowedHosts, isLoopback, listen } from './serve.js';

export interface UiOptions {
  /** The store to browse. */
  db: string;
  host: string;
  port: number;
  /** `[observability] trace_url`. */
  traceUrl?: string;
}

/** A running `arbor ui`. */
export interface RunningUi {
  /** The base URL. */
  url: string;
  /** The URL to open: the base URL with the one-time sign-in token. */
  signInUrl: string;
  port: number;
  fetch(request: Request): Response | Promise<Response>;
  close(): Promise<void>;
}

/**
 * `arbor ui`: the dashboard over a store, without serving A2A. It listens on loopback only and
 * trusts no connection for coming from there (an agent's sandboxed `exec` with network can reach
 * loopback too): the page signs in once with a token made at start and printed in the URL's
 * fragment (never sent in a request line, so never in a log), then holds a session cookie.
 */
export async function startUi(options: UiOptions): Promise<RunningUi> {
  if (!isLoopback(options.host))
    throw new ArborError(
      'usage',
      `\`arbor ui\` listens on loopback only (127.0.0.1, ::1 or localhost), not on ${options.host}; to share a dashboard, use \`arbor serve\` with principals.`,
    );
  if (options.db !== ':memory:' && !existsSync(options.db))
    throw new ArborError(
      'usage',
      `No store at ${options.db}: pass --db PATH (or set ARBOR_DB) to the store your runs use.`,
    );
  const store = new SqliteStore(options.db);
  const once = new OneTimeToken();
  const sessions = new Sessions();
  let port = options.port;
  const hosts = allowedHosts(options.host, undefined);
  const app = new Hono();
  app.use('*', async (c, next) => {
    const host = (c.req.header('host') ?? new URL(c.req.url).host).toLowerCase();
    if (hosts !== undefined && !hosts(port, 80).has(host))
      return c.json({ error: `Host \`${host}\` is not one this server answers to.` }, 421);
    await next();
    return undefined;
  });
  app.use(
    '*',
    bodyLimit({
      maxBytes: DEFAULT_MAX_BODY_BYTES,
      refuse: (c, { status, message }) => c.json({ error: message }, status),
    }),
  );
  app.route(
    '/',
    dashboardApp({
      store,
      sessions,
      signIn: (token) => (once.take(token) ? { name: 'local', role: 'operator' } : undefined),
      origins: new Set(),
      secure: false,
      ...(options.traceUrl === undefined ? {} : { traceUrl: options.traceUrl }),
      title: 'arbor ui',
    }),
  );
  let server;
  try {
    server = await listen(app.fetch, { host: options.host, port: options.port });
  } catch (error) {
    store.close();
    throw error;
  }
  port = (server.address() as AddressInfo).port;
  const bare = options.host.replace(/^\[|\]$/g, '');
  const url = `http://${bare.includes(':') ? `[${bare}]` : bare}:${port}`;
  return {
    url,
    signInUrl: `${url}/#token=${once.token}`,
    port,
    fetch: (request) => app.fetch(request),
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      });
      store.close();
    },
  };
}
