import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { toolResults } from '../api/helpers.js';
import { fakeLlm } from '../helpers/fake-llm.js';
import { callRpc, serveProcess, userMessage } from '../helpers/serve.js';

describe('agents that schedule themselves under arbor serve', () => {
  it('runs a follow-up an agent scheduled, after the server was killed and restarted', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'arbor-serve-schedule-'));
    const llm = await fakeLlm({
      scripts: [
        { match: { contains: 'Follow-up: check the build' }, steps: [{ text: 'followed up' }] },
        {
          steps: [
            {
              tool_calls: [
                {
                  name: 'schedule.at',
                  args: { after: '2s', instruction: 'Follow-up: check the build again.' },
                },
              ],
            },
            { text: 'scheduled the follow-up' },
          ],
        },
      ],
    });
    const args = ['--intel', llm.url, '--model', 'm', '--sandbox', 'off'];
    const first = await serveProcess(args, { cwd: dir });
    const sent = await callRpc(first.url, first.token, 'SendMessage', {
      message: userMessage('Check the build, and again later.'),
    });
    expect(sent.result?.task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(toolResults(llm.requests.at(-1)?.body).join('\n')).toMatch(/"schedule":"sch_/);
    first.proc.signal('SIGKILL');
    await first.proc.exited;

    const second = await serveProcess(args, { cwd: dir });
    await expect
      .poll(
        async () => {
          const listed = await callRpc(second.url, second.token, 'ListTasks', {});
          return listed.result?.tasks?.find(
            (task) => task.metadata?.['arbor/schedule'] !== undefined,
          )?.status.state;
        },
        { timeout: 15_000, interval: 200 },
      )
      .toBe('TASK_STATE_COMPLETED');
    const listed = await callRpc(second.url, second.token, 'ListTasks', {});
    const followUp = listed.result?.tasks?.find(
      (task) => task.metadata?.['arbor/schedule'] !== undefined,
    );
    expect(followUp?.artifacts?.[0]?.parts[0]?.text).toBe('followed up');
    expect(followUp?.metadata?.['arbor/principal']).toBe('operator');
    // Once: an `at` schedule is gone after it fired.
    expect(
      listed.result?.tasks?.filter((task) => task.metadata?.['arbor/schedule'] !== undefined),
    ).toHaveLength(1);
  });
});
