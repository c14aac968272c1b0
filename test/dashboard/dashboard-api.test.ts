import { afterEach, describe, expect, it } from 'vitest';
import { startUi, type RunningUi } from '../../src/serve/ui-server.js';
import { seedBigRun } from '../helpers/seed-store.js';
import { callRpc, serveInProcess, userMessage } from '../helpers/serve.js';

/**
 * The dashboard's HTTP side, in process: its page and assets, sign-in and the session cookie, the
 * Origin check on every change, who sees which run, gates answered by operators only, the event
 * stream, and `arbor ui`'s loopback-only, one-time-token rules.
 */

const uis: RunningUi[] = [];
afterEach(async () => {
  await Promise.all(uis.splice(0).map((ui) => ui.close()));
});

const ASK = {
  scripts: [
    {
      steps: [
        { tool_calls: [{ name: 'ask_human', args: { question: 'Proceed?' } }] },
        { text: 'went on' },
      ],
    },
  ],
};

const PRINCIPALS = {
  principal: [
    { name: 'ops', role: 'operator' as const, token: 'env:OPS_TOKEN' },
    { name: 'alice', role: 'user' as const, token: 'env:ALICE_TOKEN' },
    { name: 'bob', role: 'user' as const, token: 'env:BOB_TOKEN' },
  ],
};
const ENV = {
  OPS_TOKEN: 'ops-token-0123456789',
  ALICE_TOKEN: 'alice-token-0123456789',
  BOB_TOKEN: 'bob-token-0123456789',
};

/** A browser's requests to one server: its own Origin on changes, the cookie it was given. */
function browserAt(base: string, fetcher: (request: Request) => Response | Promise<Response>) {
  let cookie: string | undefined;
  const send = async (path: string, init: RequestInit = {}): Promise<Response> => {
    const headers = new Headers(init.headers);
    if (cookie !== undefined) headers.set('cookie', cookie);
    const response = await fetcher(new Request(`${base}${path}`, { ...init, headers }));
    const set = response.headers.get('set-cookie');
    if (set !== null) cookie = set.split(';')[0];
    return response;
  };
  return {
    get: (path: string, headers: Record<string, string> = {}) => send(path, { headers }),
    post: (path: string, body: unknown, origin: string | null = base) =>
      send(path, {
        method: 'POST',
        body: JSON.stringify(body),
        headers: {
          'content-type': 'application/json',
          ...(origin === null ? {} : { origin }),
        },
      }),
    signIn: (token: string) =>
      send('/ui/session', {
        method: 'POST',
        body: JSON.stringify({ token }),
        headers: { 'content-type': 'application/json', origin: base },
      }),
  };
}

describe('the dashboard over arbor serve', () => {
  it('serves its page with a strict CSP and its assets with ETags, from the package', async () => {
    const { server } = await serveInProcess(ASK);
    const page = await server.fetch(new Request(`${server.url}/`));
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(await page.text()).toContain('/ui/assets/app.js');
    const script = await server.fetch(new Request(`${server.url}/ui/assets/app.js`));
    expect(script.headers.get('content-type')).toContain('text/javascript');
    const etag = script.headers.get('etag') ?? '';
    expect(etag).not.toBe('');
    const again = await server.fetch(
      new Request(`${server.url}/ui/assets/app.js`, { headers: { 'if-none-match': etag } }),
    );
    expect(again.status).toBe(304);
    expect((await server.fetch(new Request(`${server.url}/ui/assets/other.js`))).status).toBe(404);
  });

  it('signs in with a token into an HttpOnly SameSite=Strict cookie; changes need the page’s own Origin', async () => {
    const { server } = await serveInProcess(ASK, { serve: PRINCIPALS, env: ENV });
    const browser = browserAt(server.url, (r) => server.fetch(r));
    expect((await browser.get('/ui/api/runs')).status).toBe(401);
    // No Origin, another site's Origin, a wrong token: refused.
    expect((await browser.post('/ui/session', { token: ENV.OPS_TOKEN }, null)).status).toBe(403);
    expect(
      (await browser.post('/ui/session', { token: ENV.OPS_TOKEN }, 'https://evil.example')).status,
    ).toBe(403);
    expect((await browser.signIn('not-a-token')).status).toBe(401);
    expect((await browser.post('/ui/session', { nope: 1 })).status).toBe(400);

    const signed = await browser.signIn(ENV.OPS_TOKEN);
    expect(signed.status).toBe(200);
    const cookie = signed.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^arbor_session=[\w-]{40,};/);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Strict');
    expect(cookie).not.toContain(ENV.OPS_TOKEN);
    expect(await (await browser.get('/ui/api/me')).json()).toMatchObject({
      name: 'ops',
      role: 'operator',
      can_answer: true,
    });
    // A script may read with its bearer token instead.
    const bearer = await server.fetch(
      new Request(`${server.url}/ui/api/me`, {
        headers: { authorization: `Bearer ${ENV.ALICE_TOKEN}` },
      }),
    );
    expect(await bearer.json()).toMatchObject({ name: 'alice', role: 'user', can_answer: false });
    // Signing out ends the session.
    expect((await browser.post('/ui/session/end', {})).status).toBe(200);
    expect((await browser.get('/ui/api/me')).status).toBe(401);
  });

  it("shows a user only its own tasks' runs; only an operator answers a gate, and the run goes on", async () => {
    const { server } = await serveInProcess(ASK, { serve: PRINCIPALS, env: ENV });
    const asked = await callRpc(server.url, ENV.ALICE_TOKEN, 'SendMessage', {
      message: userMessage('Ask first.'),
    });
    const task = asked.result?.task;
    expect(task?.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const runId = String(task?.metadata?.['arbor/runId']);

    const alice = browserAt(server.url, (r) => server.fetch(r));
    await alice.signIn(ENV.ALICE_TOKEN);
    const bob = browserAt(server.url, (r) => server.fetch(r));
    await bob.signIn(ENV.BOB_TOKEN);
    const ops = browserAt(server.url, (r) => server.fetch(r));
    await ops.signIn(ENV.OPS_TOKEN);

    const listOf = async (who: typeof alice) =>
      ((await (await who.get('/ui/api/runs')).json()) as { runs: { run_id: string }[] }).runs.map(
        (r) => r.run_id,
      );
    expect(await listOf(alice)).toEqual([runId]);
    expect(await listOf(bob)).toEqual([]);
    expect(await listOf(ops)).toEqual([runId]);
    expect((await bob.get(`/ui/api/runs/${runId}`)).status).toBe(404);
    expect((await bob.get(`/ui/api/runs/${runId}/stream`)).status).toBe(404);

    const detail = (await (await alice.get(`/ui/api/runs/${runId}`)).json()) as {
      gates: { gate: string; question: string }[];
      nodes: { path: string }[];
    };
    expect(detail.nodes.map((n) => n.path)).toEqual(['0']);
    const gate = detail.gates[0];
    expect(gate?.question).toBe('Proceed?');
    const path = `/ui/api/runs/${runId}/gates/${gate?.gate ?? ''}`;
    expect((await alice.post(path, { answer: 'yes' })).status).toBe(403);
    expect((await ops.post(path, { answer: 'yes' }, 'https://evil.example')).status).toBe(403);
    expect((await ops.post(path, { answer: '' })).status).toBe(400);
    expect(await (await ops.post(path, { answer: 'Yes, proceed.' })).json()).toEqual({
      answered: gate?.gate,
    });
    expect((await ops.post(path, { answer: 'again' })).status).toBe(409);

    // The run takes the answer and completes; its stream replays every event and then ends.
    const stream = await ops.get(`/ui/api/runs/${runId}/stream`);
    const text = await stream.text();
    expect(stream.headers.get('content-type')).toContain('text/event-stream');
    expect(text).toMatch(
      /^event: arbor\ndata: \{"seq":\d+,.*"event":"node.spawned".*\}\nid: \d+$/m,
    );
    expect(text).toContain('"event":"gate.closed"');
    expect(text).toMatch(/event: end\ndata: \{"status":"completed"\}/);
    const events = (await (await ops.get(`/ui/api/runs/${runId}/events`)).json()) as {
      events: { event: string; via?: string }[];
    };
    expect(events.events.find((e) => e.event === 'gate.closed')?.via).toBe('dashboard');
    const node = (await (await ops.get(`/ui/api/runs/${runId}/nodes/0`)).json()) as {
      messages: { role: string; content?: unknown }[];
      grant: Record<string, unknown>;
    };
    expect(JSON.stringify(node.messages)).toContain('Yes, proceed.');
    expect(node.grant).toHaveProperty('caveats');
    for (const token of Object.values(ENV)) expect(JSON.stringify(node)).not.toContain(token);
  });

  it('streams a live run’s events as they happen, resuming from Last-Event-ID', async () => {
    const { server } = await serveInProcess(ASK);
    const token = server.principals.generated?.token ?? '';
    const asked = await callRpc(server.url, token, 'SendMessage', { message: userMessage('Ask.') });
    const task = asked.result?.task;
    const runId = String(task?.metadata?.['arbor/runId']);
    const ops = browserAt(server.url, (r) => server.fetch(r));
    await ops.signIn(token);
    const first = (await (await ops.get(`/ui/api/runs/${runId}/events`)).json()) as {
      events: { seq: number }[];
    };
    const lastSeq = first.events.at(-1)?.seq ?? 0;
    const stream = await ops.get(`/ui/api/runs/${runId}/stream`, {
      'last-event-id': String(lastSeq),
    });
    const reader = stream.body?.pipeThrough(new TextDecoderStream()).getReader();
    // The run waits on its gate: the stream is open and has sent nothing before lastSeq.
    await callRpc(server.url, token, 'SendMessage', {
      message: userMessage('Go on.', { taskId: task?.id, contextId: task?.contextId }),
    });
    let text = '';
    while (!text.includes('event: end')) {
      const chunk = await reader?.read();
      if (chunk === undefined || chunk.done) break;
      text += chunk.value;
    }
    const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    expect(ids.length).toBeGreaterThan(0);
    expect(Math.min(...ids)).toBeGreaterThan(lastSeq);
    expect(text).toContain('"event":"gate.closed"');
    expect(text).toContain('event: end');
  });
});

describe('arbor ui', () => {
  it('listens on loopback only and needs an existing store', async () => {
    const { db } = seedBigRun(3, 1);
    await expect(startUi({ db, host: '0.0.0.0', port: 0 })).rejects.toThrow(/loopback only/);
    await expect(
      startUi({ db: '/nonexistent/arbor.db', host: '127.0.0.1', port: 0 }),
    ).rejects.toThrow(/No store at/);
  });

  it('signs in once with its one-time token, trusts no connection for being on loopback, and checks Host', async () => {
    const { db, runId } = seedBigRun(5, 2);
    const ui = await startUi({ db, host: '127.0.0.1', port: 0 });
    uis.push(ui);
    expect(ui.signInUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/#token=[\w-]{30,}$/);
    const token = ui.signInUrl.split('#token=')[1] ?? '';
    const browser = browserAt(ui.url, (r) => ui.fetch(r));
    // A loopback connection without the session is not trusted.
    expect((await browser.get('/ui/api/runs')).status).toBe(401);
    expect((await browser.signIn(token)).status).toBe(200);
    const runs = (await (await browser.get('/ui/api/runs?q=fan+out')).json()) as {
      runs: { run_id: string; nodes: number }[];
    };
    expect(runs.runs).toEqual([expect.objectContaining({ run_id: runId, nodes: 5 })]);
    expect(
      ((await (await browser.get('/ui/api/runs?q=nothing-like-it')).json()) as { runs: [] }).runs,
    ).toEqual([]);
    expect((await browser.get('/ui/api/runs?status=bogus')).status).toBe(400);
    // The token was good once.
    const other = browserAt(ui.url, (r) => ui.fetch(r));
    expect((await other.signIn(token)).status).toBe(401);
    // A page reaching the port by DNS rebinding names another host.
    const rebound = await ui.fetch(
      new Request(`${ui.url}/`, { headers: { host: `evil.example:${ui.port}` } }),
    );
    expect(rebound.status).toBe(421);
  });

  it.each([
    ['past 4 MiB', 'x'.repeat(4 * 1024 * 1024 + 1), 413, /at most 4194304 bytes \(4 MiB\)/],
    ['nested 65 deep', `${'['.repeat(65)}${']'.repeat(65)}`, 400, /nested at most 64 levels/],
  ])('refuses a body %s before the sign-in route reads it', async (_name, body, status, error) => {
    const { db } = seedBigRun(2, 1);
    const ui = await startUi({ db, host: '127.0.0.1', port: 0 });
    uis.push(ui);
    const response = await ui.fetch(
      new Request(`${ui.url}/ui/session`, {
        method: 'POST',
        headers: { origin: ui.url, 'content-type': 'application/json' },
        body,
      }),
    );
    expect(response.status).toBe(status);
    expect(((await response.json()) as { error: string }).error).toMatch(error);
  });
});
