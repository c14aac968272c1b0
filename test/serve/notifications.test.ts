import { describe, expect, it } from 'vitest';
import { steps } from '../helpers/fake-llm.js';
import { hookReceiver as receiver, type Received } from '../helpers/hook-receiver.js';
import { rpc, rpcRequest, serveInProcess, userMessage, type RpcAnswer } from '../helpers/serve.js';

const OPS = 'ops-token-0123456789ab';
const env = { OPS_TOKEN: OPS, HOOK_TOKEN: 'hook-secret-0123456789' };
const principal = [{ name: 'ops', role: 'operator' as const, token: 'env:OPS_TOKEN' }];

type Server = Awaited<ReturnType<typeof serveInProcess>>['server'];
async function call(server: Server, method: string, params: unknown): Promise<RpcAnswer> {
  const response = await server.fetch(rpcRequest(server.url, rpc(method, params), OPS));
  return (await response.json()) as RpcAnswer;
}

const stateOf = (r: Received) =>
  (r.body.task as { status?: { state?: string } } | undefined)?.status?.state ?? '';

describe('notifications of arbor serve', () => {
  it('pushes the task to a push-notification config at each change of state, with its token; configs are listed, read and deleted', async () => {
    const hook = await receiver();
    const { server } = await serveInProcess(steps({ text: 'pushed' }), {
      env,
      serve: { principal, webhook_allow: ['127.0.0.1'] },
    });
    const sent = await call(server, 'SendMessage', {
      message: userMessage('Do it.'),
      configuration: { taskPushNotificationConfig: { url: hook.url, token: 'push-token-1' } },
    });
    expect(sent.result?.task?.status.state).toBe('TASK_STATE_COMPLETED');
    const all = await hook.until((got) => got.some((r) => stateOf(r) === 'TASK_STATE_COMPLETED'));
    const final = all.find((r) => stateOf(r) === 'TASK_STATE_COMPLETED');
    expect(final?.headers['x-a2a-notification-token']).toBe('push-token-1');
    expect((final?.body.task as { id?: string }).id).toBe(sent.result?.task?.id);
    const listed = await call(server, 'ListTaskPushNotificationConfigs', {
      taskId: sent.result?.task?.id,
    });
    expect(JSON.stringify(listed.result)).toContain(hook.url);
  });

  it('refuses push configs to loopback, cloud-metadata and non-HTTP URLs it was not told to allow', async () => {
    const hook = await receiver();
    const { server } = await serveInProcess(steps({ text: 'x', delay_ms: 200 }), {
      env,
      serve: { principal },
    });
    const sent = await call(server, 'SendMessage', { message: userMessage('Go.') });
    const taskId = sent.result?.task?.id;
    const refused = await call(server, 'CreateTaskPushNotificationConfig', {
      taskId,
      url: hook.url,
    });
    expect(refused.error?.message).toMatch(/127\.0\.0\.1 resolves to a loopback address/);
    const metadata = await call(server, 'CreateTaskPushNotificationConfig', {
      taskId,
      url: 'http://169.254.169.254/latest/meta-data',
    });
    expect(metadata.error?.message).toMatch(/169\.254\.169\.254/);
    const bad = await call(server, 'CreateTaskPushNotificationConfig', {
      taskId,
      url: 'file:///etc/passwd',
    });
    expect(bad.error?.message).toMatch(/only http: and https:/);
  });

  it('tells the on_gate webhook when a task waits for a person, with its bearer token', async () => {
    const hook = await receiver();
    const { server } = await serveInProcess(
      {
        scripts: [
          {
            steps: [
              {
                tool_calls: [
                  { name: 'ask_human', args: { question: 'Ship it?', choices: ['yes', 'no'] } },
                ],
              },
              { text: 'shipped' },
            ],
          },
        ],
      },
      {
        env,
        serve: {
          principal,
          webhook_allow: ['127.0.0.1'],
          on_gate: { url: hook.url, token: 'env:HOOK_TOKEN' },
        },
      },
    );
    const sent = await call(server, 'SendMessage', { message: userMessage('Release.') });
    expect(sent.result?.task?.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const [told] = await hook.until((got) => got.length > 0);
    expect(told?.headers.authorization).toBe('Bearer hook-secret-0123456789');
    expect(told?.body).toMatchObject({
      event: 'gate.opened',
      task_id: sent.result?.task?.id,
      question: 'Ship it?',
      choices: ['yes', 'no'],
      principal: 'ops',
    });
  });
});
