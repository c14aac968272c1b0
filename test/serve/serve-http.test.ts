import { statSync, readFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rpc, rpcRequest, serveInProcess, userMessage, type RpcAnswer } from '../helpers/serve.js';
import { steps } from '../helpers/fake-llm.js';

const ALICE = 'alice-token-0123456789';
const BOB = 'bob-token-0123456789ab';
const OPS = 'ops-token-0123456789ab';

const principals = {
  serve: {
    principal: [
      { name: 'alice', role: 'user' as const, token: 'env:ALICE_TOKEN' },
      { name: 'bob', role: 'user' as const, token: 'env:BOB_TOKEN', max_runs: 1 },
      { name: 'ops', role: 'operator' as const, token: 'env:OPS_TOKEN' },
    ],
  },
  env: { ALICE_TOKEN: ALICE, BOB_TOKEN: BOB, OPS_TOKEN: OPS },
};

async function call(
  server: { fetch(r: Request): Response | Promise<Response> },
  base: string,
  method: string,
  params: unknown,
  token?: string,
) {
  const response = await server.fetch(rpcRequest(base, rpc(method, params), token));
  return {
    status: response.status,
    body: (await response.json()) as RpcAnswer,
  };
}

describe('arbor serve over HTTP (in process)', () => {
  it('serves the agent card to anyone, naming the JSON-RPC interface, streaming and the bearer scheme', async () => {
    const { server } = await serveInProcess(steps({ text: 'hi' }), principals);
    const response = await server.fetch(new Request(`${server.url}/.well-known/agent-card.json`));
    expect(response.status).toBe(200);
    const card = (await response.json()) as {
      supportedInterfaces: unknown[];
      capabilities: { streaming: boolean };
      securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: string } } };
    };
    expect(card.supportedInterfaces[0]).toMatchObject({
      url: `${server.url}/a2a/jsonrpc`,
      protocolBinding: 'JSONRPC',
      protocolVersion: '1.0',
    });
    expect(card.capabilities.streaming).toBe(true);
    expect(card.securitySchemes.bearer.httpAuthSecurityScheme.scheme).toBe('Bearer');
  });

  it('turns away a request without a token or with a wrong one, and accepts a principal', async () => {
    const { server } = await serveInProcess(steps({ text: 'the answer' }), principals);
    const send = { message: userMessage('hello') };
    expect((await call(server, server.url, 'SendMessage', send)).status).toBe(401);
    expect((await call(server, server.url, 'SendMessage', send, 'not-a-token-at-all')).status).toBe(
      401,
    );
    const ok = await call(server, server.url, 'SendMessage', send, ALICE);
    expect(ok.status).toBe(200);
    expect(ok.body.result?.task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(ok.body.result?.task?.artifacts?.[0]?.parts[0]?.text).toBe('the answer');
    expect(ok.body.result?.task?.metadata?.['arbor/principal']).toBe('alice');
  });

  it('lets a user see and cancel only its own tasks; an operator sees every task', async () => {
    const { server } = await serveInProcess(steps({ text: 'done' }), principals);
    const sent = await call(
      server,
      server.url,
      'SendMessage',
      { message: userMessage('mine') },
      ALICE,
    );
    const id = sent.body.result?.task?.id ?? '';
    expect((await call(server, server.url, 'GetTask', { id }, ALICE)).body.result?.id).toBe(id);
    const other = await call(server, server.url, 'GetTask', { id }, BOB);
    expect(other.body.error?.code).toBe(-32001);
    expect((await call(server, server.url, 'CancelTask', { id }, BOB)).body.error?.code).toBe(
      -32001,
    );
    expect((await call(server, server.url, 'GetTask', { id }, OPS)).body.result?.id).toBe(id);
    const listed = await call(server, server.url, 'ListTasks', {}, BOB);
    expect(listed.body.result?.tasks ?? []).toEqual([]);
    expect((await call(server, server.url, 'ListTasks', {}, OPS)).body.result?.tasks).toHaveLength(
      1,
    );
  });

  it('refuses a Host that is not its own (DNS rebinding) and an Origin it was not told of', async () => {
    const { server } = await serveInProcess(steps({ text: 'x' }), principals);
    const rebound = rpcRequest('http://attacker.example:7700', rpc('ListTasks', {}), OPS);
    expect((await server.fetch(rebound)).status).toBe(421);
    const crossSite = rpcRequest(server.url, rpc('ListTasks', {}), OPS, {
      origin: 'https://evil.example',
    });
    expect((await server.fetch(crossSite)).status).toBe(403);
    // The probes answer anyone, whatever the Host.
    expect((await server.fetch(new Request('http://attacker.example/healthz'))).status).toBe(200);
  });

  it('answers the preflight of an allowed browser origin, and names public_url in the card', async () => {
    const { server } = await serveInProcess(steps({ text: 'x' }), {
      ...principals,
      serve: {
        ...principals.serve,
        allowed_origins: ['https://app.example'],
        public_url: 'https://agents.example.com/',
      },
    });
    const preflight = await server.fetch(
      new Request(`${server.url}/a2a/jsonrpc`, {
        method: 'OPTIONS',
        headers: {
          origin: 'https://app.example',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization, content-type',
        },
      }),
    );
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://app.example');
    const allowed = await server.fetch(
      rpcRequest(server.url, rpc('ListTasks', {}), OPS, { origin: 'https://app.example' }),
    );
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://app.example');
    const card = (await (
      await server.fetch(new Request(`${server.url}/.well-known/agent-card.json`))
    ).json()) as { supportedInterfaces: { url: string }[] };
    expect(card.supportedInterfaces[0]?.url).toBe('https://agents.example.com/a2a/jsonrpc');
  });

  it('serves /metrics to operators only, and /healthz and /readyz to anyone', async () => {
    const { server } = await serveInProcess(steps({ text: 'x' }), principals);
    const metrics = (token?: string) =>
      server.fetch(
        new Request(
          `${server.url}/metrics`,
          token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } },
        ),
      );
    expect((await metrics()).status).toBe(401);
    expect((await metrics(ALICE)).status).toBe(403);
    const ok = await metrics(OPS);
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('arbor_runs_active 0');
    expect(await (await server.fetch(new Request(`${server.url}/readyz`))).text()).toBe('ready\n');
  });

  it('holds a principal to its max_runs', async () => {
    const { server } = await serveInProcess(steps({ text: 'slow', delay_ms: 2000 }), principals);
    const first = await call(
      server,
      server.url,
      'SendMessage',
      { message: userMessage('one'), configuration: { returnImmediately: true } },
      BOB,
    );
    expect(first.body.result?.task?.status.state).toBe('TASK_STATE_WORKING');
    const second = await call(
      server,
      server.url,
      'SendMessage',
      { message: userMessage('two') },
      BOB,
    );
    expect(second.body.error?.message).toMatch(/bob has 1 runs going, its limit \(max_runs\)/);
    const metrics = await (
      await server.fetch(
        new Request(`${server.url}/metrics`, { headers: { authorization: `Bearer ${OPS}` } }),
      )
    ).text();
    expect(metrics).toContain('arbor_tasks_refused_total{reason="principal_runs"} 1');
  });

  it('is not ready at capacity, and serves /metrics to anyone with public_metrics', async () => {
    const { server } = await serveInProcess(steps({ text: 'slow', delay_ms: 1500 }), {
      ...principals,
      serve: { ...principals.serve, max_runs: 1, public_metrics: true },
    });
    await call(
      server,
      server.url,
      'SendMessage',
      { message: userMessage('fill it'), configuration: { returnImmediately: true } },
      OPS,
    );
    const ready = await server.fetch(new Request(`${server.url}/readyz`));
    expect(ready.status).toBe(503);
    expect(await ready.text()).toBe('not ready: at capacity (1 runs)\n');
    const refused = await call(
      server,
      server.url,
      'SendMessage',
      { message: userMessage('one more') },
      ALICE,
    );
    expect(refused.body.error?.message).toMatch(/at capacity/);
    const metrics = await server.fetch(new Request(`${server.url}/metrics`));
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toMatch(/^arbor_runs_active 1$/m);
  });

  it('holds a principal to its tokens_per_day', async () => {
    const { server } = await serveInProcess(
      steps({ text: 'costly', usage: { input_tokens: 600, output_tokens: 500 } }),
      {
        env: { CAROL_TOKEN: 'carol-token-0123456789' },
        serve: {
          principal: [
            { name: 'carol', role: 'user', token: 'env:CAROL_TOKEN', tokens_per_day: 1000 },
          ],
        },
      },
    );
    const first = await call(
      server,
      server.url,
      'SendMessage',
      { message: userMessage('one') },
      'carol-token-0123456789',
    );
    expect(first.body.result?.task?.status.state).toBe('TASK_STATE_COMPLETED');
    const second = await call(
      server,
      server.url,
      'SendMessage',
      { message: userMessage('two') },
      'carol-token-0123456789',
    );
    expect(second.body.error?.message).toMatch(
      /carol has used 1100 tokens in the last 24 hours, its limit \(tokens_per_day\)/,
    );
  });

  it('drains: not ready, no new task, and the task going finishes before the drain ends', async () => {
    const { server } = await serveInProcess(steps({ text: 'finished', delay_ms: 300 }), principals);
    const going = await call(
      server,
      server.url,
      'SendMessage',
      { message: userMessage('one'), configuration: { returnImmediately: true } },
      OPS,
    );
    const drained = server.drain(10_000);
    const ready = await server.fetch(new Request(`${server.url}/readyz`));
    expect(ready.status).toBe(503);
    expect(await ready.text()).toBe('not ready: draining\n');
    const refused = await call(
      server,
      server.url,
      'SendMessage',
      { message: userMessage('two') },
      OPS,
    );
    expect(refused.body.error?.message).toMatch(/draining/);
    expect(going.body.result?.task?.status.state).toBe('TASK_STATE_WORKING');
    // No run left over: the one going finished within the drain.
    expect(await drained).toEqual([]);
  });

  it('answers a bad body with a JSON-RPC error, not a crash', async () => {
    const { server } = await serveInProcess(steps({ text: 'x' }), principals);
    const response = await server.fetch(rpcRequest(server.url, '{not json', OPS));
    const body = (await response.json()) as { error: { code: number } };
    expect(body.error.code).toBe(-32700);
    for (const bad of ['null', '[]', '42']) {
      const answer = (await (await server.fetch(rpcRequest(server.url, bad, OPS))).json()) as {
        error: { code: number };
      };
      expect(answer.error.code).toBe(-32600);
    }
    const empty = await call(
      server,
      server.url,
      'SendMessage',
      { message: userMessage('   ') },
      OPS,
    );
    expect(empty.body.error?.message).toMatch(/no text/);
  });

  it.each([
    ['/a2a/jsonrpc', 'a JSON-RPC error', { jsonrpc: '2.0', id: null, error: { code: -32600 } }],
    ['/ui/session', 'a JSON error', {}],
  ])(
    'refuses a body past `[serve] max_body_bytes` at %s with 413 and %s',
    async (route, _how, shape) => {
      const { server } = await serveInProcess(steps({ text: 'x' }), {
        ...principals,
        serve: { ...principals.serve, max_body_bytes: 2048 },
      });
      const response = await server.fetch(
        new Request(`${server.url}${route}`, {
          method: 'POST',
          body: `{"pad":"${'x'.repeat(4096)}"}`,
          headers: { authorization: `Bearer ${OPS}`, origin: server.url },
        }),
      );
      expect(response.status).toBe(413);
      const body = (await response.json()) as Record<string, unknown>;
      expect(body).toMatchObject(shape);
      expect(JSON.stringify(body)).toMatch(
        /at most 2048 bytes \(2 KiB\), `\[serve\] max_body_bytes`, got more/,
      );
    },
  );

  it('with no principal configured, makes an operator token, writes it 0600 and takes nothing else', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'arbor-serve-'));
    const tokenFile = join(dir, 'serve-token');
    const { server } = await serveInProcess(steps({ text: 'ok' }), { tokenFile });
    const token = server.principals.generated?.token ?? '';
    expect(readFileSync(tokenFile, 'utf8').trim()).toBe(token);
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
    expect((await call(server, server.url, 'ListTasks', {})).status).toBe(401);
    expect((await call(server, server.url, 'ListTasks', {}, token)).status).toBe(200);
  });

  it('refuses to listen on a non-loopback address without principals', async () => {
    await expect(serveInProcess(steps({ text: 'x' }), { host: '0.0.0.0' })).rejects.toThrow(
      /not a loopback address/,
    );
  });
});
