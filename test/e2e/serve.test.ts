import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CancelTaskRequest,
  GetTaskRequest,
  ListTasksRequest,
  SendMessageRequest,
  SubscribeToTaskRequest,
  TaskState,
  type StreamResponse,
  type Task,
} from '@a2a-js/sdk';
import { startFakeLlm } from '../../src/testing/index.js';
import { fakeLlm } from '../helpers/fake-llm.js';
import { rpc, sdkClient, serveProcess, userMessage, type RpcAnswer } from '../helpers/serve.js';

const send = (text: string, extra: Record<string, unknown> = {}) =>
  SendMessageRequest.fromJSON({ message: userMessage(text, extra) });

function isTask(result: unknown): result is Task {
  return typeof result === 'object' && result !== null && 'status' in result;
}

function textOf(task: Task): string {
  const part = task.artifacts[0]?.parts[0]?.content;
  return part?.$case === 'text' ? part.value : '';
}

/** A fresh directory for a server's store and token. */
function workdir(): string {
  return mkdtempSync(join(tmpdir(), 'arbor-serve-e2e-'));
}

async function collect(stream: AsyncIterable<StreamResponse>): Promise<StreamResponse[]> {
  const all: StreamResponse[] = [];
  for await (const update of stream) all.push(update);
  return all;
}

describe('arbor serve (a real process, the A2A SDK client)', () => {
  it('answers the SDK client: card, send, stream, get and list', async () => {
    const llm = await fakeLlm({ scripts: [{ steps: [{ text: 'forty-two' }] }] });
    const { url, token } = await serveProcess(
      ['--intel', llm.url, '--model', 'm', '--sandbox', 'off'],
      {
        cwd: workdir(),
      },
    );
    const client = await sdkClient(url, token);
    const card = await client.getAgentCard();
    expect(card.capabilities?.streaming).toBe(true);

    const sent = await client.sendMessage(send('What is the answer?'));
    expect(isTask(sent) && sent.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    if (!isTask(sent)) throw new Error('expected a task');
    expect(textOf(sent)).toBe('forty-two');

    const updates = await collect(client.sendMessageStream(send('And again?')));
    const cases = updates.map((u) => u.payload?.$case);
    expect(cases[0]).toBe('task');
    expect(cases).toContain('artifactUpdate');
    const progress = updates.flatMap((u) =>
      u.payload?.$case === 'statusUpdate'
        ? [u.payload.value.metadata?.['arbor/event'] as { type?: string } | undefined]
        : [],
    );
    expect(progress.map((event) => event?.type)).toEqual(
      expect.arrayContaining(['node.spawned', 'usage', 'node.end']),
    );
    const last = updates.at(-1)?.payload;
    expect(last?.$case === 'statusUpdate' && last.value.status?.state).toBe(
      TaskState.TASK_STATE_COMPLETED,
    );

    const got = await client.getTask(GetTaskRequest.fromJSON({ id: sent.id }));
    expect(textOf(got)).toBe('forty-two');
    const listed = await client.listTasks(ListTasksRequest.fromJSON({}));
    expect(listed.tasks).toHaveLength(2);
    expect(listed.totalSize).toBe(2);
  });

  it('streams the answer as artifact chunks, with A2A-cased metadata', async () => {
    const answer = 'The answer, streamed in small pieces, is forty-two.';
    const llm = await fakeLlm({
      scripts: [
        {
          steps: [
            {
              text: 'Thinking aloud first.',
              tool_calls: [{ name: 'memory.set', args: { key: 'k', value: 1 } }],
              chunk_chars: 6,
            },
            { text: answer, chunk_chars: 5 },
          ],
        },
      ],
    });
    const { url, token } = await serveProcess(
      ['--intel', llm.url, '--model', 'm', '--sandbox', 'off'],
      { cwd: workdir() },
    );
    const client = await sdkClient(url, token);
    const updates = await collect(client.sendMessageStream(send('Stream it.')));
    const chunks = updates.flatMap((u) =>
      u.payload?.$case === 'artifactUpdate' ? [u.payload.value] : [],
    );
    const text = (chunk: (typeof chunks)[number]): string => {
      const part = chunk.artifact?.parts[0]?.content;
      return part?.$case === 'text' ? part.value : '';
    };
    const streamed = chunks.filter((c) => !c.lastChunk);
    // Deltas a slow reader has not taken yet are merged, so how many chunks come varies.
    expect(streamed.length).toBeGreaterThanOrEqual(2);
    // A step's first chunk starts the artifact over; the rest of the step is appended to it.
    const starts = streamed.filter((c) => !c.append).map(text);
    expect(starts).toHaveLength(2);
    expect('Thinking aloud first.'.startsWith(starts[0] ?? '-')).toBe(true);
    let joined = '';
    for (const chunk of streamed) joined = chunk.append ? joined + text(chunk) : text(chunk);
    expect(joined).toBe(answer);
    // The whole answer last, replacing what was streamed.
    const final = chunks.at(-1);
    expect(final).toMatchObject({ lastChunk: true, append: false });
    expect(final === undefined ? '' : text(final)).toBe(answer);
    const last = updates.at(-1)?.payload;
    const metadata = last?.$case === 'statusUpdate' ? last.value.metadata : undefined;
    expect(metadata?.['arbor/runId']).toMatch(/^run_/);
    expect(metadata?.['arbor/usage']).toEqual({
      inputTokens: expect.any(Number) as unknown,
      outputTokens: expect.any(Number) as unknown,
    });
    expect(metadata?.['arbor/run_id']).toBeUndefined();
  });

  it('puts a task that asks a person in INPUT_REQUIRED, and the next message on it answers', async () => {
    const llm = await fakeLlm({
      scripts: [
        {
          steps: [
            { tool_calls: [{ name: 'ask_human', args: { question: 'Which colour?' } }] },
            { text: 'Painted it.' },
          ],
        },
      ],
    });
    const { url, token } = await serveProcess(
      ['--intel', llm.url, '--model', 'm', '--sandbox', 'off'],
      {
        cwd: workdir(),
      },
    );
    const client = await sdkClient(url, token);
    const asked = await client.sendMessage(send('Paint the shed.'));
    if (!isTask(asked)) throw new Error('expected a task');
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const question = asked.status?.message?.parts[0]?.content;
    expect(question?.$case === 'text' && question.value).toBe('Which colour?');
    const answered = await client.sendMessage(
      send('Green.', { taskId: asked.id, contextId: asked.contextId }),
    );
    if (!isTask(answered)) throw new Error('expected a task');
    expect(answered.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(answered)).toBe('Painted it.');
    // The answer reached the model as the tool's result.
    expect(JSON.stringify(llm.requests.at(-1)?.body)).toContain('Green.');
  });

  it('cancels the whole tree on CancelTask, and SubscribeToTask follows the task to its end', async () => {
    const llm = await fakeLlm({
      scripts: [
        { match: { contains: 'Slow sub-task' }, steps: [{ text: 'late', delay_ms: 60_000 }] },
        {
          steps: [
            { tool_calls: [{ name: 'subagent.run', args: { instruction: 'Slow sub-task' } }] },
            { text: 'never' },
          ],
        },
      ],
    });
    const { url, token } = await serveProcess(
      ['--intel', llm.url, '--model', 'm', '--sandbox', 'off'],
      {
        cwd: workdir(),
      },
    );
    const client = await sdkClient(url, token);
    const started = await client.sendMessage(
      SendMessageRequest.fromJSON({
        message: userMessage('Delegate it.'),
        configuration: { returnImmediately: true },
      }),
    );
    if (!isTask(started)) throw new Error('expected a task');
    const followed = client.resubscribeTask(SubscribeToTaskRequest.fromJSON({ id: started.id }));
    const seen: StreamResponse[] = [];
    for await (const update of followed) {
      seen.push(update);
      const event =
        update.payload?.$case === 'statusUpdate'
          ? (update.payload.value.metadata?.['arbor/event'] as
              { type?: string; depth?: number } | undefined)
          : undefined;
      // The sub-agent is running: cancel the task from another call.
      if (event?.type === 'node.spawned' && event.depth === 1)
        void client.cancelTask(CancelTaskRequest.fromJSON({ id: started.id }));
    }
    const last = seen.at(-1)?.payload;
    expect(last?.$case === 'statusUpdate' && last.value.status?.state).toBe(
      TaskState.TASK_STATE_CANCELED,
    );
    const ended = seen.filter(
      (u) =>
        u.payload?.$case === 'statusUpdate' &&
        (u.payload.value.metadata?.['arbor/event'] as { type?: string } | undefined)?.type ===
          'node.end',
    );
    expect(ended.length).toBe(2);
    const got = await client.getTask(GetTaskRequest.fromJSON({ id: started.id }));
    expect(got.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  });

  it('resumes a running task after the server is killed, and answers for every task after a restart', async () => {
    const dir = workdir();
    const llm = await fakeLlm({
      scripts: [
        { match: { contains: 'Quick' }, steps: [{ text: 'quick done' }] },
        { steps: [{ text: 'slow done', delay_ms: 1500 }] },
      ],
    });
    const args = ['--intel', llm.url, '--model', 'm', '--sandbox', 'off'];
    const first = await serveProcess(args, { cwd: dir });
    const client = await sdkClient(first.url, first.token);
    const quick = await client.sendMessage(send('Quick one.'));
    if (!isTask(quick)) throw new Error('expected a task');
    const slow = await client.sendMessage(
      SendMessageRequest.fromJSON({
        message: userMessage('Slow one.'),
        configuration: { returnImmediately: true },
      }),
    );
    if (!isTask(slow)) throw new Error('expected a task');
    await llm.waitForRequests(2);
    first.proc.signal('SIGKILL');
    await first.proc.exited;

    const second = await serveProcess(args, { cwd: dir });
    expect(second.proc.stderr).toMatch(/resumed 1 task run/);
    const again = await sdkClient(second.url, second.token);
    expect(textOf(await again.getTask(GetTaskRequest.fromJSON({ id: quick.id })))).toBe(
      'quick done',
    );
    const followed = await collect(
      again.resubscribeTask(SubscribeToTaskRequest.fromJSON({ id: slow.id })),
    );
    const last = followed.at(-1)?.payload;
    expect(last?.$case === 'statusUpdate' && last.value.status?.state).toBe(
      TaskState.TASK_STATE_COMPLETED,
    );
    expect(textOf(await again.getTask(GetTaskRequest.fromJSON({ id: slow.id })))).toBe('slow done');
  });

  it('drains on SIGTERM: a task still going past --drain-timeout is left to resume, and the server exits 0', async () => {
    const dir = workdir();
    const llm = await fakeLlm({
      scripts: [{ steps: [{ text: 'after the drain', delay_ms: 3000 }] }],
    });
    const args = [
      '--intel',
      llm.url,
      '--model',
      'm',
      '--sandbox',
      'off',
      '--drain-timeout',
      '300ms',
    ];
    const first = await serveProcess(args, { cwd: dir });
    const client = await sdkClient(first.url, first.token);
    const slow = await client.sendMessage(
      SendMessageRequest.fromJSON({
        message: userMessage('Take your time.'),
        configuration: { returnImmediately: true },
      }),
    );
    if (!isTask(slow)) throw new Error('expected a task');
    await llm.waitForRequests(1);
    first.proc.signal('SIGTERM');
    await first.proc.waitForStderr(/draining/);
    expect((await first.proc.exited).code).toBe(0);
    expect(first.proc.stderr).toMatch(/1 run\(s\) left to resume on restart/);

    const second = await serveProcess(args.slice(0, -2), { cwd: dir });
    const again = await sdkClient(second.url, second.token);
    await collect(again.resubscribeTask(SubscribeToTaskRequest.fromJSON({ id: slow.id })));
    expect(textOf(await again.getTask(GetTaskRequest.fromJSON({ id: slow.id })))).toBe(
      'after the drain',
    );
  });

  it('goes not-ready while every model endpoint is down, learns they are back by probe, and counts it in /metrics', async () => {
    const dir = workdir();
    const down = await startFakeLlm({ playbook: { scripts: [{ steps: [{ text: 'back' }] }] } });
    const port = down.port;
    await down.close();
    const config = join(dir, 'arbor.toml');
    writeFileSync(config, '[intelligence.breaker]\ncooldown = "200ms"\n');
    const { url, token } = await serveProcess(
      [
        '--intel',
        `http://127.0.0.1:${port}/v1`,
        '--model',
        'm',
        '--sandbox',
        'off',
        '--config',
        config,
      ],
      { cwd: dir },
    );
    const call = async (body: string) =>
      (await (
        await fetch(`${url}/a2a/jsonrpc`, {
          method: 'POST',
          body,
          headers: { authorization: `Bearer ${token}`, 'a2a-version': '1.0' },
        })
      ).json()) as RpcAnswer;
    const failed = await call(rpc('SendMessage', { message: userMessage('Anyone there?') }));
    expect(failed.result?.task?.status.state).toBe('TASK_STATE_FAILED');
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.text()).toMatch(/every intelligence endpoint is down/);
    const metrics = async () =>
      (await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${token}` } })).text();
    expect(await metrics()).toMatch(/^arbor_intel_all_down 1$/m);

    const back = await startFakeLlm({
      playbook: { scripts: [{ steps: [{ text: 'back' }] }] },
      port,
    });
    try {
      // The probe (GET /models) finds the endpoint answering again.
      await back.waitForRequests(1);
      await expect
        .poll(async () => (await fetch(`${url}/readyz`)).status, { timeout: 10_000 })
        .toBe(200);
      expect(back.requests[0]?.path).toBe('/v1/models');
      expect(back.requests.filter((r) => r.dialect !== null)).toHaveLength(0);
      const text = await metrics();
      expect(text).toMatch(/^arbor_intel_all_down 0$/m);
      expect(text).toMatch(/^arbor_runs_finished_total\{status="failed"\} 1$/m);
      expect(text).toMatch(/^arbor_runs_started_total\{source="a2a"\} 1$/m);
      expect(text).toMatch(/^arbor_model_errors_total\{endpoint="0",kind="connection"\} [1-9]/m);
      for (const line of text.split('\n').filter((l) => l !== '' && !l.startsWith('#')))
        expect(line).toMatch(/^[a-z_:][a-z0-9_:]*(\{[^}]*\})? -?[0-9.e+Inf-]+$/i);
    } finally {
      await back.close();
    }
  });
});
