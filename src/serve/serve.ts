import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { serve as listenHono, type ServerType } from '@hono/node-server';
import ipaddr from 'ipaddr.js';
import { Arbor } from '../api/arbor.js';
import {
  parseDuration,
  type McpServeTable,
  type RunSettings,
  type ServeTable,
} from '../config/index.js';
import { ArborError, type IntelConfig } from '../protocol/index.js';
import { LEASE_RENEW_MS } from '../store/index.js';
import { sleep } from '../supervisor/index.js';
import { ArborA2AHandler } from './a2a-handler.js';
import { agentCard } from './agent-card.js';
import { httpApp } from './http-app.js';
import { mcpSessionsOf } from './mcp/mcp-sessions.js';
import { IntelReadiness } from './intel-readiness.js';
import { Principals, type Principal } from './principals.js';
import { serveSecrets } from './serve-secrets.js';
import { ServeMetrics } from './serve-metrics.js';
import { TaskService } from './task-service.js';
import { TaskInbox } from './task-inbox.js';
import { DEFAULT_MAX_FILE_BYTES } from './message-input.js';
import { ResourceWatch } from './resource-watch.js';
import { scheduleTools, type ScheduleHost } from './schedule-tools.js';
import { Triggers } from './triggers.js';
import { Notifications } from './notifications.js';
import { checkOnGate, Webhooks } from './webhooks.js';
import { dashboardApp } from '../dashboard/routes.js';
import { RunWakeups } from '../dashboard/run-stream.js';
import { Sessions } from '../dashboard/sessions.js';

export interface ServeOptions {
  settings: RunSettings;
  intelligence: IntelConfig;
  env: NodeJS.ProcessEnv;
  serve: ServeTable | undefined;
  host: string;
  port: number;
  /** PEM certificate and key: serve HTTPS. */
  tls?: { cert: string; key: string };
  /** Where the generated operator token is written (0600) when no principal is configured. */
  tokenFile: string | undefined;
  cwd: string;
  /** Problems worth an operator's eye while serving (a trigger that could not start a run). */
  warn?: (line: string) => void;
  /** MCP at `/mcp`: the config's `[mcp.serve]` and the version the server names itself with. */
  mcp?: { table: McpServeTable | undefined; version: string };
}

/** A running `arbor serve`. */
export interface RunningServer {
  /** The base URL, as the agent card names it. */
  url: string;
  port: number;
  principals: Principals;
  /** Runs taken up again from a previous server's tasks. */
  resumed: number;
  /** Answers a request in-process, as the socket would (tests, embedding). */
  fetch(request: Request): Response | Promise<Response>;
  /**
   * Stops taking tasks (readiness goes 503), waits up to `timeoutMs` for running ones to finish,
   * then stops listening. Returns the run ids still going, left for the next server to resume.
   */
  drain(timeoutMs: number): Promise<string[]>;
  /** Stops listening and cancels every run still going. */
  close(): Promise<void>;
}

/** How long notifications still queued may take to go out when the server stops. */
const NOTIFY_GRACE_MS = 5000;

/** How long the event loop may go without a tick before `/healthz` says it has stalled. */
const STALL_MS = 10_000;

/** Starts `arbor serve`: one `Arbor`, many concurrent runs, A2A and the probes over HTTP. */
export async function startServer(options: ServeOptions): Promise<RunningServer> {
  const table = options.serve;
  const loopback = isLoopback(options.host);
  if (!loopback && (table?.principal ?? []).length === 0)
    throw new ArborError(
      'config',
      `\`arbor serve\` refuses to listen on ${options.host}, which is not a loopback address, without \`[[serve.principal]]\` entries: every caller must have a token of its own.`,
    );
  const warn = options.warn ?? (() => undefined);
  await checkOnGate(table, warn);
  const principals = Principals.resolve(table?.principal ?? [], options.env, options.tokenFile);
  const scheduling: ScheduleHost = {};
  const { arbor, store } = await Arbor.withSettings(
    { base: options.settings, intelligence: options.intelligence, cwd: options.cwd },
    options.env,
    {
      files: principals.generated?.file === undefined ? [] : [principals.generated.file],
      values: serveSecrets(table, options.env, principals.generated?.token),
    },
    scheduleTools(scheduling),
    parkAfterMs(table, options.env),
  );
  const metrics = new ServeMetrics();
  const maxRuns = table?.max_runs ?? 16;
  const intel = new IntelReadiness(options.intelligence, (down) => {
    metrics.intelAllDown(down);
  });
  const webhooks = new Webhooks(table?.webhook_allow ?? [], warn);
  const wakeups = new RunWakeups();
  const notifications = new Notifications(store.tasks, webhooks, onGateOf(table, options.env));
  const tasks = new TaskService({
    arbor,
    store,
    metrics,
    maxRuns,
    inbox: new TaskInbox(),
    maxFileBytes: table?.max_file_bytes ?? DEFAULT_MAX_FILE_BYTES,
    onChange: (task) => {
      notifications.taskChanged(task);
    },
    onGate: (task, gate) => {
      notifications.gateOpened(task, gate);
    },
    // Runs report every endpoint down (and back) in their events; the latch follows them.
    onEvent: (event) => {
      wakeups.notify(event.runId);
      if (event.type === 'intel.health') intel.report(event.allDown);
    },
    principal: (name) => principals.byName(name),
    warn,
  });
  const triggers = new Triggers({
    tasks,
    store: store.tasks,
    metrics,
    watch: new ResourceWatch(options.settings.mcpServers, options.env),
    triggers: table?.trigger ?? [],
    warn,
  });
  scheduling.triggers = triggers;
  scheduling.ownerOf = (runId) => tasks.ownerOf(runId);
  // Runs report every endpoint down (and back) in their events; the latch follows them.
  let tick = Date.now();
  const heartbeat = setInterval(() => {
    tick = Date.now();
    metrics.ready(notReady() === undefined, tasks.draining);
  }, 1000).unref();
  const notReady = (): string | undefined => {
    if (tasks.draining) return 'draining';
    if (tasks.atCapacity) return `at capacity (${maxRuns} runs)`;
    if (intel.allDown) return 'every intelligence endpoint is down';
    return undefined;
  };
  const scheme = options.tls === undefined ? 'http' : 'https';
  const hosts = allowedHosts(options.host, table);
  const baseUrl = (port: number): string => `${scheme}://${hostForUrl(options.host)}:${port}`;
  let port = options.port;
  const handler = new ArborA2AHandler(agentCard(baseUrl(port), table), tasks, notifications);
  const mcp = mcpSessionsOf(options, arbor, store, (principal) => {
    admitMcpRun(tasks, principal);
  });
  const app = httpApp({
    handler,
    mcp,
    // The card names the address the caller reached (a `Host` already checked).
    // The card names `[serve] public_url`, else the address the caller reached when that was
    // checked against a list, else the listen address: never a `Host` nobody checked.
    card: (host) =>
      agentCard(
        table?.public_url?.replace(/\/+$/, '') ??
          (hosts !== undefined && host !== '' ? `${scheme}://${host}` : baseUrl(port)),
        table,
      ),
    principals,
    metrics,
    state: {
      notReady: () => {
        const why = notReady();
        metrics.ready(why === undefined, tasks.draining);
        return why;
      },
      alive: () => Date.now() - tick < STALL_MS,
    },
    hosts: () => hosts?.(port, options.tls === undefined ? 80 : 443),
    origins: new Set(
      (table?.allowed_origins ?? []).map((origin) => origin.toLowerCase().replace(/\/$/, '')),
    ),
    publicMetrics: table?.public_metrics === true,
    ...(table?.max_body_bytes === undefined ? {} : { maxBodyBytes: table.max_body_bytes }),
    dashboard: dashboardApp({
      store,
      sessions: new Sessions(),
      signIn: (token) => principals.authenticate(`Bearer ${token}`),
      bearer: (header) => principals.authenticate(header),
      origins: new Set(
        (table?.allowed_origins ?? []).map((origin) => origin.toLowerCase().replace(/\/$/, '')),
      ),
      secure: options.tls !== undefined,
      ...(options.settings.tracing?.traceUrl === undefined
        ? {}
        : { traceUrl: options.settings.tracing.traceUrl }),
      wakeups,
      title: 'arbor serve',
    }),
  });
  const server = await listen(app.fetch, options);
  port = (server.address() as AddressInfo).port;
  // Triggers are armed before any interrupted run is taken up: one that cannot be armed (a bad
  // cron, an MCP server down) stops the server and leaves those runs to the next start.
  try {
    await triggers.start();
  } catch (error) {
    await triggers.close();
    await new Promise<void>((resolve) => {
      server.close(() => {
        resolve();
      });
    });
    clearInterval(heartbeat);
    await arbor.close();
    throw error;
  }
  const resumed = tasks.takeUp();
  tasks.keepTakingUp(LEASE_RENEW_MS);

  const stopListening = (): Promise<void> =>
    new Promise((resolve) => {
      server.close(() => {
        resolve();
      });
      (server as { closeAllConnections?: () => void }).closeAllConnections?.();
    });
  return {
    url: baseUrl(port),
    port,
    principals,
    resumed,
    fetch: (request) => app.fetch(request),
    drain: async (timeoutMs) => {
      tasks.drain();
      await mcp.close();
      await triggers.close();
      metrics.ready(false, true);
      const deadline = sleep(timeoutMs, { ref: false });
      await Promise.race([Promise.all(tasks.live.map((task) => task.done)), deadline]);
      const left = tasks.live.map((task) => task.runId);
      await stopListening();
      clearInterval(heartbeat);
      intel.stop();
      // The last notifications (a task's final state) get a moment to go out.
      await Promise.race([webhooks.idle(), sleep(NOTIFY_GRACE_MS, { ref: false })]);
      if (left.length === 0) await arbor.close();
      else store.flush();
      return left;
    },
    close: async () => {
      await mcp.close();
      await triggers.close();
      await tasks.cancelAll('the server is closing');
      await stopListening();
      await Promise.race([webhooks.idle(), sleep(NOTIFY_GRACE_MS, { ref: false })]);
      clearInterval(heartbeat);
      intel.stop();
      await arbor.close();
    },
  };
}

export function listen(
  fetch: (request: Request) => Response | Promise<Response>,
  options: Pick<ServeOptions, 'host' | 'port' | 'tls'>,
): Promise<ServerType> {
  return new Promise((resolve, reject) => {
    const server = listenHono(
      {
        fetch,
        hostname: options.host,
        port: options.port,
        overrideGlobalObjects: false,
        ...(options.tls === undefined
          ? {}
          : {
              createServer: createHttpsServer,
              serverOptions: { cert: options.tls.cert, key: options.tls.key },
            }),
      },
      () => {
        server.off('error', onError);
        resolve(server);
      },
    );
    const onError = (error: NodeJS.ErrnoException): void => {
      reject(
        new ArborError(
          'config',
          `Cannot listen on ${options.host}:${options.port}: ${error.code === 'EADDRINUSE' ? 'the address is in use' : (error.code ?? error.message)}.`,
          { cause: error },
        ),
      );
    };
    server.once('error', onError);
  });
}

export function isLoopback(host: string): boolean {
  if (host === 'localhost') return true;
  const bare = host.replace(/^\[|\]$/g, '');
  if (!ipaddr.isValid(bare)) return false;
  const address = ipaddr.process(bare);
  return address.range() === 'loopback';
}

function hostForUrl(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

/**
 * The `Host` values a loopback server answers to (its address and `localhost`, with its port) and
 * any configured; a server on another address answers to any unless some are configured.
 */
export function allowedHosts(
  host: string,
  table: ServeTable | undefined,
): ((port: number, defaultPort: number) => Set<string>) | undefined {
  const configured = (table?.allowed_hosts ?? []).map((name) => name.toLowerCase());
  if (!isLoopback(host) && configured.length === 0) return undefined;
  return (port, defaultPort) => {
    const names = isLoopback(host)
      ? ['localhost', '127.0.0.1', '[::1]', hostForUrl(host)]
      : [hostForUrl(host)];
    // On the scheme's own port a client leaves the port out of `Host`.
    const forms = names.flatMap((name) =>
      port === defaultPort ? [name, `${name}:${port}`] : [`${name}:${port}`],
    );
    return new Set([...forms, ...configured]);
  };
}

/** Under `arbor serve` a node that only waits parks after 30 s, unless told otherwise. */
const DEFAULT_PARK_AFTER_MS = 30_000;

/**
 * How long a node only waits before it parks: `[serve] park_after` (`0s`: never), else
 * `ARBOR_PARK_AFTER_MS`, else 30 s.
 */
function parkAfterMs(table: ServeTable | undefined, env: NodeJS.ProcessEnv): number | undefined {
  if (table?.park_after !== undefined) return parseDuration(table.park_after, '[serve] park_after');
  return env.ARBOR_PARK_AFTER_MS === undefined ? DEFAULT_PARK_AFTER_MS : undefined;
}

/** The `on_gate` webhook, its token read from the environment. */
function onGateOf(
  table: ServeTable | undefined,
  env: NodeJS.ProcessEnv,
): { url: string; token?: string } | undefined {
  const hook = table?.on_gate;
  if (hook === undefined) return undefined;
  if (hook.token === undefined) return { url: hook.url };
  const name = hook.token.slice('env:'.length);
  const token = env[name];
  if (token === undefined || token === '')
    throw new ArborError('config', `\`[serve] on_gate\`: \`${name}\` is not set.`);
  return { url: hook.url, token };
}

/**
 * Whether a principal may start a run over MCP (`/mcp`) now. MCP runs are not yet counted against
 * the server's `max_runs` nor a principal's `max_runs` and `tokens_per_day`, so the server's
 * drain and capacity hold, and a principal with a limit of its own is refused rather than let
 * past it: its runs go through A2A, where the limits are counted.
 */
function admitMcpRun(tasks: TaskService, principal: Principal): void {
  if (tasks.draining)
    throw new ArborError('usage', 'The server is draining: it starts no new run.');
  if (tasks.atCapacity)
    throw new ArborError('usage', 'The server is at capacity; try again later.');
  if (principal.maxRuns !== undefined || principal.tokensPerDay !== undefined)
    throw new ArborError(
      'usage',
      `${principal.name} has limits of its own (max_runs, tokens_per_day) that runs started over MCP are not counted against yet: start its runs through A2A (/a2a/jsonrpc or /a2a/rest).`,
    );
}
