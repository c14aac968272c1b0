import { describe, expect, it } from 'vitest';
import { steps } from '../helpers/fake-llm.js';
import { rpc, rpcRequest, serveInProcess, userMessage, type RpcAnswer } from '../helpers/serve.js';

const OPS = 'ops-token-0123456789ab';
const serve = {
  principal: [{ name: 'ops', role: 'operator' as const, token: 'env:OPS_TOKEN' }],
  webhook_allow: ['127.0.0.1'],
};
const env = { OPS_TOKEN: OPS };

type Server = Awaited<ReturnType<typeof serveInProcess>>['server'];
async function call(server: Server, method: string, params: unknown): Promise<RpcAnswer> {
  const response = await server.fetch(rpcRequest(server.url, rpc(method, params), OPS));
  return (await response.json()) as RpcAnswer;
}

interface CardJson {
  skills?: { id: string; name: string; description: string; tags: string[] }[];
}

describe('arbor serve against the A2A conformance checks', () => {
  it('deletes a push-notification config idempotently; a task that is not there is still not found', async () => {
    const { server } = await serveInProcess(steps({ text: 'done' }), { serve, env });
    const sent = await call(server, 'SendMessage', { message: userMessage('Go.') });
    const taskId = sent.result?.task?.id;
    const made = await call(server, 'CreateTaskPushNotificationConfig', {
      taskId,
      id: 'hook-1',
      url: 'http://127.0.0.1:9/hook',
    });
    expect(made.error).toBeUndefined();
    const params = { taskId, id: 'hook-1' };
    const first = await call(server, 'DeleteTaskPushNotificationConfig', params);
    expect(first.error).toBeUndefined();
    const again = await call(server, 'DeleteTaskPushNotificationConfig', params);
    expect(again.error).toBeUndefined();
    const listed = await call(server, 'ListTaskPushNotificationConfigs', { taskId });
    expect(JSON.stringify(listed.result)).not.toContain('hook-1');
    const missing = await call(server, 'DeleteTaskPushNotificationConfig', {
      taskId: 'no-such-task',
      id: 'hook-1',
    });
    expect(missing.error?.code).toBe(-32001);
  });

  it('lists a default skill on the card when none is configured, and only the configured ones otherwise', async () => {
    const bare = await serveInProcess(steps({ text: 'x' }), { serve, env });
    const card = (await (
      await bare.server.fetch(new Request(`${bare.server.url}/.well-known/agent-card.json`))
    ).json()) as CardJson;
    expect(card.skills).toHaveLength(1);
    expect(card.skills?.[0]?.id).toBe('delegate');
    expect(card.skills?.[0]?.description).toMatch(/tree of bounded, isolated LLM agents/);
    expect(card.skills?.[0]?.tags.length).toBeGreaterThan(0);

    const skill = { id: 'research', name: 'Research', description: 'Looks things up.' };
    const named = await serveInProcess(steps({ text: 'x' }), {
      serve: { ...serve, skill: [skill] },
      env,
    });
    const configured = (await (
      await named.server.fetch(new Request(`${named.server.url}/.well-known/agent-card.json`))
    ).json()) as CardJson;
    expect(configured.skills?.map((s) => s.id)).toEqual(['research']);
  });

  it('serves the card cacheable: Cache-Control, a strong ETag, Last-Modified, and 304 for a matching If-None-Match', async () => {
    const { server } = await serveInProcess(steps({ text: 'x' }), { serve, env });
    const url = `${server.url}/.well-known/agent-card.json`;
    const first = await server.fetch(new Request(url));
    expect(first.status).toBe(200);
    expect(first.headers.get('cache-control')).toBe('public, max-age=300');
    const etag = first.headers.get('etag') ?? '';
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{20,}"$/);
    const modified = Date.parse(first.headers.get('last-modified') ?? '');
    expect(modified).toBeLessThanOrEqual(Date.now());
    const body = await first.text();

    const same = await server.fetch(new Request(url, { headers: { 'if-none-match': etag } }));
    expect(same.status).toBe(304);
    expect(same.headers.get('etag')).toBe(etag);
    expect(await same.text()).toBe('');
    const listed = await server.fetch(
      new Request(url, { headers: { 'if-none-match': `"other", W/${etag}` } }),
    );
    expect(listed.status).toBe(304);
    const stale = await server.fetch(new Request(url, { headers: { 'if-none-match': '"other"' } }));
    expect(stale.status).toBe(200);
    expect(await stale.text()).toBe(body);
    const since = await server.fetch(
      new Request(url, {
        headers: { 'if-modified-since': first.headers.get('last-modified') ?? '' },
      }),
    );
    expect(since.status).toBe(304);
  });

  it('tolerates a trailing slash on the JSON-RPC path and the card path', async () => {
    const { server } = await serveInProcess(steps({ text: 'the answer' }), { serve, env });
    const request = rpcRequest(
      server.url,
      rpc('SendMessage', { message: userMessage('Hi.') }),
      OPS,
    );
    const slashed = new Request(`${server.url}/a2a/jsonrpc/`, request);
    const response = await server.fetch(slashed);
    expect(response.status).toBe(200);
    const answer = (await response.json()) as RpcAnswer;
    expect(answer.result?.task?.status.state).toBe('TASK_STATE_COMPLETED');
    const card = await server.fetch(new Request(`${server.url}/.well-known/agent-card.json/`));
    expect(card.status).toBe(200);
    expect(((await card.json()) as CardJson).skills).toBeDefined();
  });
});
