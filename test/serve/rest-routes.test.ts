import { describe, expect, it } from 'vitest';
import {
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTasksRequest,
  SendMessageRequest,
  SubscribeToTaskRequest,
  TaskPushNotificationConfig,
  TaskState,
  type StreamResponse,
  type Task,
} from '@a2a-js/sdk';
import { TaskNotFoundError } from '@a2a-js/sdk/errors';
import { steps } from '../helpers/fake-llm.js';
import { hookReceiver, type Received } from '../helpers/hook-receiver.js';
import { sdkClient, serveInProcess, userMessage, type Binding } from '../helpers/serve.js';

const OPS = 'ops-token-0123456789ab';
const ALICE = 'alice-token-0123456789';
const serveOptions = {
  env: { OPS_TOKEN: OPS, ALICE_TOKEN: ALICE },
  serve: {
    principal: [
      { name: 'ops', role: 'operator' as const, token: 'env:OPS_TOKEN' },
      { name: 'alice', role: 'user' as const, token: 'env:ALICE_TOKEN' },
    ],
    webhook_allow: ['127.0.0.1'],
  },
};

const PATHS: Record<Binding, string> = { JSONRPC: '/a2a/jsonrpc', 'HTTP+JSON': '/a2a/rest/' };

const send = (text: string, extra: Record<string, unknown> = {}) =>
  SendMessageRequest.fromJSON({ message: userMessage(text), ...extra });

function asTask(result: unknown): Task {
  if (typeof result !== 'object' || result === null || !('status' in result))
    throw new Error(`Expected a task, got ${JSON.stringify(result)}`);
  return result as Task;
}

function textOf(task: Task): string {
  const part = task.artifacts[0]?.parts[0]?.content;
  return part?.$case === 'text' ? part.value : '';
}

function stateOf(update: StreamResponse | undefined): TaskState | undefined {
  const payload = update?.payload;
  if (payload?.$case === 'statusUpdate') return payload.value.status?.state;
  if (payload?.$case === 'task') return payload.value.status?.state;
  return undefined;
}

const pushedState = (r: Received) =>
  (r.body.task as { status?: { state?: string } } | undefined)?.status?.state ?? '';

describe.each<Binding>(['JSONRPC', 'HTTP+JSON'])('A2A over %s, with the SDK client', (binding) => {
  /** The SDK client over this binding, and every URL it called (to prove which binding it was). */
  async function client(url: string, token = OPS) {
    const called: string[] = [];
    const a2a = await sdkClient(url, token, binding, called);
    return { a2a, called };
  }

  it('sends, streams, gets and lists, every call on this binding', async () => {
    const { server } = await serveInProcess(
      { scripts: [{ steps: [{ text: 'forty-two' }] }, { steps: [{ text: 'again' }] }] },
      serveOptions,
    );
    const { a2a, called } = await client(server.url);
    const sent = asTask(await a2a.sendMessage(send('What is the answer?')));
    expect(sent.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(sent)).toBe('forty-two');

    const updates: StreamResponse[] = [];
    for await (const update of a2a.sendMessageStream(send('And again?'))) updates.push(update);
    expect(updates[0]?.payload?.$case).toBe('task');
    expect(updates.map((u) => u.payload?.$case)).toContain('artifactUpdate');
    expect(stateOf(updates.at(-1))).toBe(TaskState.TASK_STATE_COMPLETED);

    const got = await a2a.getTask(GetTaskRequest.fromJSON({ id: sent.id, historyLength: 0 }));
    expect(textOf(got)).toBe('forty-two');
    expect(got.history).toEqual([]);
    const listed = await a2a.listTasks(
      ListTasksRequest.fromJSON({ status: 'TASK_STATE_COMPLETED', pageSize: 1 }),
    );
    expect(listed.tasks).toHaveLength(1);
    expect(listed.totalSize).toBe(2);
    expect(listed.nextPageToken).not.toBe('');

    expect(called).toHaveLength(4);
    for (const url of called) expect(url.startsWith(`${server.url}${PATHS[binding]}`)).toBe(true);
  });

  it('cancels a running task, and a subscriber follows it to CANCELED', async () => {
    const { llm, server } = await serveInProcess(
      steps({ text: 'late', delay_ms: 60_000 }),
      serveOptions,
    );
    const { a2a } = await client(server.url);
    const started = asTask(
      await a2a.sendMessage(
        send('Take your time.', { configuration: { returnImmediately: true } }),
      ),
    );
    expect(started.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    await llm.waitForRequests(1);
    const followed = a2a.resubscribeTask(SubscribeToTaskRequest.fromJSON({ id: started.id }));
    const first = await followed.next();
    expect(stateOf(first.done === true ? undefined : first.value)).toBe(
      TaskState.TASK_STATE_WORKING,
    );
    const cancelled = await a2a.cancelTask(CancelTaskRequest.fromJSON({ id: started.id }));
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const rest: StreamResponse[] = [];
    for await (const update of followed) rest.push(update);
    expect(stateOf(rest.at(-1))).toBe(TaskState.TASK_STATE_CANCELED);
    const got = await a2a.getTask(GetTaskRequest.fromJSON({ id: started.id }));
    expect(got.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  });

  it("pushes to a config given with a message; configs are made, read, listed and deleted; another user's task is not found", async () => {
    const hook = await hookReceiver();
    const { server } = await serveInProcess(steps({ text: 'pushed' }), serveOptions);
    const { a2a } = await client(server.url);
    const sent = asTask(
      await a2a.sendMessage(
        send('Do it.', {
          configuration: { taskPushNotificationConfig: { url: hook.url, token: 'push-token-1' } },
        }),
      ),
    );
    const pushed = await hook.until((all) =>
      all.some((r) => pushedState(r) === 'TASK_STATE_COMPLETED'),
    );
    const final = pushed.find((r) => pushedState(r) === 'TASK_STATE_COMPLETED');
    expect(final?.headers['x-a2a-notification-token']).toBe('push-token-1');
    expect((final?.body.task as { id?: string }).id).toBe(sent.id);

    const made = await a2a.createTaskPushNotificationConfig(
      TaskPushNotificationConfig.fromJSON({
        taskId: sent.id,
        id: 'second',
        url: hook.url,
        token: 'push-token-2',
      }),
    );
    expect(made).toMatchObject({ taskId: sent.id, id: 'second', url: hook.url });
    const read = await a2a.getTaskPushNotificationConfig(
      GetTaskPushNotificationConfigRequest.fromJSON({ taskId: sent.id, id: 'second' }),
    );
    expect(read.token).toBe('push-token-2');
    const listed = async () =>
      (
        await a2a.listTaskPushNotificationConfig(
          ListTaskPushNotificationConfigsRequest.fromJSON({ taskId: sent.id }),
        )
      ).configs.map((config) => config.token);
    expect((await listed()).sort()).toEqual(['push-token-1', 'push-token-2']);
    await a2a.deleteTaskPushNotificationConfig(
      DeleteTaskPushNotificationConfigRequest.fromJSON({ taskId: sent.id, id: 'second' }),
    );
    expect(await listed()).toEqual(['push-token-1']);
    await expect(
      a2a.getTaskPushNotificationConfig(
        GetTaskPushNotificationConfigRequest.fromJSON({ taskId: sent.id, id: 'second' }),
      ),
    ).rejects.toBeInstanceOf(TaskNotFoundError);

    // Alice is a user: the operator's task is not found to her, on every method.
    const { a2a: alice } = await client(server.url, ALICE);
    await expect(alice.getTask(GetTaskRequest.fromJSON({ id: sent.id }))).rejects.toBeInstanceOf(
      TaskNotFoundError,
    );
    await expect(
      alice.cancelTask(CancelTaskRequest.fromJSON({ id: sent.id })),
    ).rejects.toBeInstanceOf(TaskNotFoundError);
    await expect(
      alice.listTaskPushNotificationConfig(
        ListTaskPushNotificationConfigsRequest.fromJSON({ taskId: sent.id }),
      ),
    ).rejects.toBeInstanceOf(TaskNotFoundError);
  });
});

describe('A2A over HTTP+JSON, on the wire', () => {
  const rest = (
    base: string,
    path: string,
    init: RequestInit & { token?: string } = {},
  ): Request => {
    const headers = new Headers(init.headers);
    headers.set('a2a-version', '1.0');
    if (!headers.has('content-type')) headers.set('content-type', 'application/json');
    if (init.token !== undefined) headers.set('authorization', `Bearer ${init.token}`);
    return new Request(`${base}/a2a/rest${path}`, { ...init, headers });
  };

  it('announces both interfaces in the card, at their URLs, protocol 1.0', async () => {
    const { server } = await serveInProcess(steps({ text: 'x' }), serveOptions);
    const card = (await (
      await server.fetch(new Request(`${server.url}/.well-known/agent-card.json`))
    ).json()) as { supportedInterfaces: unknown[] };
    expect(card.supportedInterfaces).toEqual([
      expect.objectContaining({
        url: `${server.url}/a2a/jsonrpc`,
        protocolBinding: 'JSONRPC',
        protocolVersion: '1.0',
      }),
      expect.objectContaining({
        url: `${server.url}/a2a/rest`,
        protocolBinding: 'HTTP+JSON',
        protocolVersion: '1.0',
      }),
    ]);
  });

  it.each([
    ['no token', undefined],
    ['a wrong token', 'not-a-token-at-all'],
  ])('refuses a call with %s with 401, before any route is looked at', async (_, token) => {
    const { llm, server } = await serveInProcess(steps({ text: 'x' }), serveOptions);
    const body = JSON.stringify({ message: userMessage('hello') });
    for (const request of [
      rest(server.url, '/message:send', {
        method: 'POST',
        body,
        ...(token === undefined ? {} : { token }),
      }),
      rest(server.url, '/tasks', token === undefined ? {} : { token }),
      rest(server.url, '/no/such/route', token === undefined ? {} : { token }),
    ]) {
      const response = await server.fetch(request);
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer');
      expect(await response.json()).toMatchObject({
        error: {
          code: 401,
          status: 'UNAUTHENTICATED',
          message: expect.stringMatching(/bearer token is required/) as unknown,
        },
      });
    }
    expect(llm.requests).toHaveLength(0);
  });

  it('maps errors to HTTP statuses with the protocol error body, and tolerates a trailing slash', async () => {
    const { server } = await serveInProcess(steps({ text: 'ok' }), serveOptions);
    const missing = await server.fetch(rest(server.url, '/tasks/no-such-task', { token: OPS }));
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({
      error: {
        code: 404,
        status: 'NOT_FOUND',
        details: [expect.objectContaining({ reason: 'TASK_NOT_FOUND' })],
      },
    });
    const badJson = await server.fetch(
      rest(server.url, '/message:send', { method: 'POST', body: '{not json', token: OPS }),
    );
    expect(badJson.status).toBe(400);
    expect(await badJson.json()).toMatchObject({
      error: {
        status: 'INVALID_ARGUMENT',
        message: expect.stringMatching(/Expected a JSON request body/) as unknown,
      },
    });
    const notJson = await server.fetch(
      rest(server.url, '/message:send', {
        method: 'POST',
        body: 'message=hello',
        token: OPS,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }),
    );
    expect(notJson.status).toBe(400);
    expect(await notJson.text()).toMatch(/Expected Content-Type application\/json/);
    const badQuery = await server.fetch(rest(server.url, '/tasks?pageSize=ten', { token: OPS }));
    expect(badQuery.status).toBe(400);
    const noVersion = await server.fetch(
      new Request(`${server.url}/a2a/rest/tasks`, { headers: { authorization: `Bearer ${OPS}` } }),
    );
    expect(noVersion.status).toBe(400);
    expect(await noVersion.text()).toMatch(/version '0\.3' is not supported/);
    const wrongMethod = await server.fetch(rest(server.url, '/message:send', { token: OPS }));
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('POST');

    const sent = await server.fetch(
      rest(server.url, '/message:send/', {
        method: 'POST',
        body: JSON.stringify({ message: userMessage('Go.') }),
        token: OPS,
        headers: { 'content-type': 'application/json' },
      }),
    );
    expect(sent.status).toBe(200);
    const { task } = (await sent.json()) as { task: { id: string; status: { state: string } } };
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    const got = await server.fetch(rest(server.url, `/tasks/${task.id}/`, { token: OPS }));
    expect(got.status).toBe(200);
    expect(((await got.json()) as { id: string }).id).toBe(task.id);
  });

  it('refuses a body past `[serve] max_body_bytes` with 413 and the protocol error body', async () => {
    const { server } = await serveInProcess(steps({ text: 'x' }), {
      ...serveOptions,
      serve: { ...serveOptions.serve, max_body_bytes: 2048 },
    });
    const response = await server.fetch(
      rest(server.url, '/message:send', {
        method: 'POST',
        body: JSON.stringify({ message: userMessage('x'.repeat(4096)) }),
        token: OPS,
      }),
    );
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({
      error: {
        code: 413,
        message: expect.stringMatching(
          /at most 2048 bytes \(2 KiB\), `\[serve\] max_body_bytes`/,
        ) as unknown,
      },
    });
  });

  it('refuses a Host that is not its own and an Origin it was not told of', async () => {
    const { server } = await serveInProcess(steps({ text: 'x' }), serveOptions);
    const rebound = rest('http://attacker.example:7700', '/tasks', { token: OPS });
    expect((await server.fetch(rebound)).status).toBe(421);
    const crossSite = rest(server.url, '/tasks', {
      token: OPS,
      headers: { origin: 'https://evil.example' },
    });
    expect((await server.fetch(crossSite)).status).toBe(403);
  });
});
