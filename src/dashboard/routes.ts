import { Hono, type Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { createMiddleware } from 'hono/factory';
import { z } from 'zod';
import type { ViewerView } from '../protocol/index.js';
import type { SqliteStore } from '../store/index.js';
import { CONTENT_SECURITY_POLICY, loadAssets } from './assets.js';
import { eventsAfter, nodeDetail, runDetail, runsList } from './run-data.js';
import { SESSION_COOKIE, type Sessions, type Viewer } from './sessions.js';
import { streamRunEvents, type RunWakeups } from './run-stream.js';

/** What the dashboard needs of the server it is part of (`arbor serve` or `arbor ui`). */
export interface DashboardOptions {
  store: SqliteStore;
  sessions: Sessions;
  /** Who a sign-in token is: a principal's token, or `arbor ui`'s one-time token. */
  signIn(token: string): Viewer | undefined;
  /** Who a request's `Authorization` header is (scripts may read the API with a bearer token). */
  bearer?(header: string | undefined): Viewer | undefined;
  /** Browser origins besides the page's own that may make changes (`[serve] allowed_origins`). */
  origins: ReadonlySet<string>;
  /** Whether the page is served over TLS: the cookie is then `Secure`. */
  secure: boolean;
  /** `[observability] trace_url`: traced runs link to it. */
  traceUrl?: string;
  /** Wakes a run's event stream when the run has new events (runs going in this process). */
  wakeups?: RunWakeups;
  /** Which server this is, for the page's title. */
  title: string;
}

export interface DashboardEnv {
  Variables: { viewer: Viewer };
}

const RunsQuerySchema = z.strictObject({
  status: z
    .enum(['running', 'completed', 'failed', 'refused', 'cancelled', 'interrupted'])
    .optional(),
  q: z.string().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});

const SignInSchema = z.strictObject({ token: z.string().min(1).max(512) });
const AnswerSchema = z.strictObject({ answer: z.string().min(1).max(10_000) });

/**
 * The web dashboard: the page and its assets at `/`, and its JSON API and event streams under
 * `/ui/`. Reading needs a signed-in viewer (the session cookie, or a bearer token); a user
 * principal sees only the runs of its own tasks; answering a gate needs an operator. Every request
 * that changes something must come from the page's own origin (or one configured), checked on
 * `Origin`, on top of the cookie being SameSite=Strict.
 */
export function dashboardApp(options: DashboardOptions): Hono<DashboardEnv> {
  const app = new Hono<DashboardEnv>();
  const assets = loadAssets();

  app.get('/', (c) => {
    const page = assets?.get('index.html');
    if (page === undefined)
      return c.text(
        'The dashboard is not built: run `npm run build` in the arbor checkout (it makes dist/ui/).\n',
        503,
      );
    return c.body(page.body as Uint8Array<ArrayBuffer>, 200, {
      'content-type': page.type,
      'content-security-policy': CONTENT_SECURITY_POLICY,
      'x-frame-options': 'DENY',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-store',
    });
  });

  app.get('/ui/assets/:name', (c) => {
    const asset = assets?.get(c.req.param('name'));
    if (asset === undefined || c.req.param('name') === 'index.html')
      return c.json({ error: 'no such file' }, 404);
    if (c.req.header('if-none-match') === asset.etag) return c.body(null, 304);
    return c.body(asset.body as Uint8Array<ArrayBuffer>, 200, {
      'content-type': asset.type,
      etag: asset.etag,
      'cache-control': 'no-cache',
      'x-content-type-options': 'nosniff',
    });
  });

  const viewerOf = (
    cookie: string | undefined,
    authorization: string | undefined,
  ): Viewer | undefined => options.sessions.viewer(cookie) ?? options.bearer?.(authorization);

  /** A change from another site (or with no `Origin` at all) is refused. */
  const foreign = (c: Context<DashboardEnv>): Response | undefined => {
    const origin = c.req.header('origin')?.toLowerCase();
    if (origin === undefined)
      return c.json({ error: 'A change needs the Origin header a browser sends.' }, 403);
    if (origin !== new URL(c.req.url).origin && !options.origins.has(origin))
      return c.json({ error: `Origin \`${origin}\` may not make changes here.` }, 403);
    return undefined;
  };

  app.post('/ui/session', async (c) => {
    const refused = foreign(c);
    if (refused !== undefined) return refused;
    const body = SignInSchema.safeParse(await c.req.json().catch(() => undefined));
    if (!body.success) return c.json({ error: 'Expected {"token": "…"}.' }, 400);
    const viewer = options.signIn(body.data.token);
    if (viewer === undefined)
      return c.json({ error: 'That token is not valid here (or was already used).' }, 401);
    setCookie(c, SESSION_COOKIE, options.sessions.open(viewer), {
      httpOnly: true,
      sameSite: 'Strict',
      path: '/',
      secure: options.secure,
    });
    return c.json({ ...me(viewer), title: options.title });
  });

  app.post('/ui/session/end', (c) => {
    const refused = foreign(c);
    if (refused !== undefined) return refused;
    options.sessions.close(getCookie(c, SESSION_COOKIE));
    deleteCookie(c, SESSION_COOKIE, { path: '/', secure: options.secure });
    return c.json({ ok: true });
  });

  // Everything below needs a viewer.
  app.use(
    '/ui/api/*',
    createMiddleware<DashboardEnv>(async (c, next) => {
      const viewer = viewerOf(getCookie(c, SESSION_COOKIE), c.req.header('authorization'));
      if (viewer === undefined) return c.json({ error: 'Sign in first.' }, 401);
      c.set('viewer', viewer);
      await next();
      return undefined;
    }),
  );
  const viewer = (c: Context<DashboardEnv>): Viewer => c.get('viewer');
  /** The run, if this viewer may see it. */
  const visible = (c: Context<DashboardEnv>, runId: string): boolean => {
    if (options.store.getRun(runId) === undefined) return false;
    const who = viewer(c);
    return who.role === 'operator' || options.store.tasks.ownerOfRun(runId) === who.name;
  };
  const noRun = (c: Context<DashboardEnv>) =>
    c.json({ error: `No run \`${c.req.param('run') ?? ''}\` here.` }, 404);

  app.get('/ui/api/me', (c) => c.json({ ...me(viewer(c)), title: options.title }));

  app.get('/ui/api/runs', (c) => {
    const query = RunsQuerySchema.safeParse(c.req.query());
    if (!query.success)
      return c.json({ error: `Bad query: ${query.error.issues[0]?.message ?? 'invalid'}.` }, 400);
    const who = viewer(c);
    return c.json({
      runs: runsList(options.store, {
        ...(query.data.status === undefined ? {} : { status: query.data.status }),
        ...(query.data.q === undefined ? {} : { search: query.data.q }),
        ...(who.role === 'operator' ? {} : { owner: who.name }),
        limit: query.data.limit,
      }),
    });
  });

  app.get('/ui/api/runs/:run', (c) => {
    const runId = c.req.param('run');
    if (!visible(c, runId)) return noRun(c);
    return c.json(runDetail(options.store, runId, options.traceUrl));
  });

  app.get('/ui/api/runs/:run/events', (c) => {
    const runId = c.req.param('run');
    if (!visible(c, runId)) return noRun(c);
    const after = Math.max(0, Number(c.req.query('after') ?? 0) || 0);
    return c.json({ events: eventsAfter(options.store, runId, after, 5000) });
  });

  app.get('/ui/api/runs/:run/stream', (c) => {
    const runId = c.req.param('run');
    if (!visible(c, runId)) return noRun(c);
    const from = Number(c.req.header('last-event-id') ?? c.req.query('after') ?? 0);
    return streamRunEvents(
      c,
      options.store,
      runId,
      Number.isSafeInteger(from) ? from : 0,
      options.wakeups,
    );
  });

  app.get('/ui/api/runs/:run/nodes/:node', (c) => {
    const runId = c.req.param('run');
    if (!visible(c, runId)) return noRun(c);
    const node = nodeDetail(options.store, runId, c.req.param('node'));
    if (node === undefined)
      return c.json({ error: `Run ${runId} has no node \`${c.req.param('node')}\`.` }, 404);
    return c.json(node);
  });

  app.post('/ui/api/runs/:run/gates/:gate', async (c) => {
    const refused = foreign(c);
    if (refused !== undefined) return refused;
    const runId = c.req.param('run');
    if (!visible(c, runId)) return noRun(c);
    const who = viewer(c);
    if (who.role !== 'operator')
      return c.json({ error: `${who.name} is not an operator: only operators answer gates.` }, 403);
    const body = AnswerSchema.safeParse(await c.req.json().catch(() => undefined));
    if (!body.success) return c.json({ error: 'Expected {"answer": "…"}.' }, 400);
    const gateId = c.req.param('gate');
    const gate = options.store.getGate(runId, gateId);
    if (gate === undefined)
      return c.json({ error: `Run ${runId} has no gate \`${gateId}\`.` }, 404);
    const closed = options.store.closeGate(runId, gateId, {
      status: 'answered',
      answer: body.data.answer,
      via: 'dashboard',
      closedAt: Date.now(),
    });
    if (!closed) return c.json({ error: `Gate \`${gateId}\` is already ${gate.status}.` }, 409);
    return c.json({ answered: gateId });
  });
  return app;
}

function me(viewer: Viewer): ViewerView {
  return { name: viewer.name, role: viewer.role, can_answer: viewer.role === 'operator' };
}
