import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { GetTaskRequest, SendMessageRequest, TaskState, type Task } from '@a2a-js/sdk';
import { processStat } from '../../src/store/run-owner.js';
import { fakeLlm } from '../helpers/fake-llm.js';
import { sdkClient, serveProcess, userMessage } from '../helpers/serve.js';

/** Well under the 20 s lease: a task taken up here was taken up for its dead server, not a lapse. */
const TAKE_UP_WITHIN_MS = 12_000;

type Client = Awaited<ReturnType<typeof sdkClient>>;

/** A slow task sent to `client`, answered at once while its run goes on. */
async function sendSlow(client: Client): Promise<Task> {
  const task = await client.sendMessage(
    SendMessageRequest.fromJSON({
      message: userMessage('Slow one.'),
      configuration: { returnImmediately: true },
    }),
  );
  if (!('status' in task)) throw new Error('expected a task');
  return task;
}

/** Kills an unreaped server with SIGKILL and waits for it to be a zombie; returns its pid. */
async function killUnreaped(proc: { waitForStderr(pattern: RegExp): Promise<RegExpExecArray> }) {
  const pid = Number((await proc.waitForStderr(/arbor pid (\d+)/))[1]);
  process.kill(pid, 'SIGKILL');
  while (processStat(pid)?.state !== 'Z') await delay(10);
  return pid;
}

/** Asks for the task until it is final or `withinMs` has passed; returns its last state. */
async function settledState(client: Client, id: string, withinMs: number): Promise<TaskState> {
  const until = Date.now() + withinMs;
  for (;;) {
    const state = (await client.getTask(GetTaskRequest.fromJSON({ id }))).status?.state;
    if (state === undefined) throw new Error(`task ${id} has no state`);
    if (state !== TaskState.TASK_STATE_WORKING && state !== TaskState.TASK_STATE_SUBMITTED)
      return state;
    if (Date.now() > until) return state;
    await delay(100);
  }
}

describe.runIf(processStat(process.pid) !== undefined)(
  'arbor serve takes up a dead server’s task',
  () => {
    const slowLlm = () =>
      fakeLlm({ scripts: [{ steps: [{ text: 'slow done', delay_ms: 1500 }] }] });

    it('on restart, while the killed server is still an unreaped zombie', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'arbor-takeover-'));
      const llm = await slowLlm();
      const args = ['--intel', llm.url, '--model', 'm', '--sandbox', 'off'];
      const first = await serveProcess(args, { cwd: dir, unreaped: true });
      const task = await sendSlow(await sdkClient(first.url, first.token));
      await llm.waitForRequests(1);
      const pid = await killUnreaped(first.proc);

      const second = await serveProcess(args, { cwd: dir });
      // The old server has not been reaped: kill(pid, 0) still finds it.
      expect(processStat(pid)?.state).toBe('Z');
      const client = await sdkClient(second.url, second.token);
      expect(await settledState(client, task.id, TAKE_UP_WITHIN_MS)).toBe(
        TaskState.TASK_STATE_COMPLETED,
      );
    });

    it('by a server already running on the store when the other died', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'arbor-takeover-'));
      const llm = await slowLlm();
      const args = ['--intel', llm.url, '--model', 'm', '--sandbox', 'off'];
      const first = await serveProcess(args, { cwd: dir, unreaped: true });
      const second = await serveProcess(args, { cwd: dir });
      expect(second.proc.stderr).not.toMatch(/resumed \d+ task run/);
      const task = await sendSlow(await sdkClient(first.url, first.token));
      await llm.waitForRequests(1);
      await killUnreaped(first.proc);

      const client = await sdkClient(second.url, second.token);
      expect(await settledState(client, task.id, TAKE_UP_WITHIN_MS)).toBe(
        TaskState.TASK_STATE_COMPLETED,
      );
      await second.proc.waitForStderr(/resumed 1 task run\(s\) a server on this store left/);
    });
  },
);
