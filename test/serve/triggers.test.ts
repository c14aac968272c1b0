import { describe, expect, it } from 'vitest';
import { steps } from '../helpers/fake-llm.js';
import { EVERYTHING_BIN } from '../helpers/mcp-servers.js';
import {
  rpc,
  rpcRequest,
  serveInProcess,
  type RpcAnswer,
  type TaskJson,
} from '../helpers/serve.js';

const OPS = 'ops-token-0123456789ab';
const ops = {
  principal: [{ name: 'ops', role: 'operator' as const, token: 'env:OPS_TOKEN' }],
};
const env = { OPS_TOKEN: OPS };

type Server = Awaited<ReturnType<typeof serveInProcess>>['server'];

async function tasks(server: Server): Promise<TaskJson[]> {
  const response = await server.fetch(rpcRequest(server.url, rpc('ListTasks', {}), OPS));
  return ((await response.json()) as RpcAnswer).result?.tasks ?? [];
}

async function metrics(server: Server): Promise<string> {
  const response = await server.fetch(
    new Request(`${server.url}/metrics`, { headers: { authorization: `Bearer ${OPS}` } }),
  );
  return response.text();
}

describe('triggers of arbor serve', () => {
  it('starts a run every interval, as tasks of the trigger', async () => {
    const { server, llm } = await serveInProcess(steps({ text: 'tick done' }), {
      env,
      serve: { ...ops, trigger: [{ name: 'tick', instruction: 'Do the tick.', every: '150ms' }] },
    });
    await llm.waitForRequests(2);
    await expect
      .poll(
        async () =>
          (await tasks(server)).filter((t) => t.status.state === 'TASK_STATE_COMPLETED').length,
      )
      .toBeGreaterThanOrEqual(2);
    const listed = await tasks(server);
    expect(listed[0]?.metadata?.['arbor/trigger']).toBe('tick');
    expect(listed[0]?.metadata?.['arbor/principal']).toBe('trigger:tick');
    expect(await metrics(server)).toMatch(
      /arbor_trigger_runs_total\{trigger="tick",result="started"\} [2-9]/,
    );
  });

  it('skips a firing while the last run of the trigger is still going, and counts it', async () => {
    const { server, llm } = await serveInProcess(steps({ text: 'slow', delay_ms: 1500 }), {
      env,
      serve: { ...ops, trigger: [{ name: 'busy', instruction: 'Work slowly.', every: '200ms' }] },
    });
    await llm.waitForRequests(1);
    await expect
      .poll(() => metrics(server), { timeout: 5000 })
      .toMatch(/arbor_trigger_runs_total\{trigger="busy",result="skipped_overlap"\} [1-9]/);
    expect((await tasks(server)).length).toBe(1);
  });

  it('starts runs on a cron schedule (with seconds)', async () => {
    const { llm } = await serveInProcess(steps({ text: 'cron done' }), {
      env,
      serve: {
        ...ops,
        trigger: [{ name: 'each-second', instruction: 'On the second.', cron: '* * * * * *' }],
      },
    });
    await expect
      .poll(() => JSON.stringify(llm.requests[0]?.body), { timeout: 10_000 })
      .toContain('On the second.');
  });

  it('refuses a cron that is not one, naming the trigger', async () => {
    await expect(
      serveInProcess(steps({ text: 'x' }), {
        env,
        serve: { ...ops, trigger: [{ name: 'bad', instruction: 'x', cron: 'every tuesday' }] },
      }),
    ).rejects.toThrow(/\[\[serve\.trigger\]\] bad: cron `every tuesday`/);
  });

  it('starts a run with the new content when a subscribed MCP resource changes (server-everything)', async () => {
    const uri = 'demo://resource/dynamic/text/1';
    const { server, llm } = await serveInProcess(steps({ text: 'seen the change' }), {
      env,
      flags: { mcp: [`everything=${process.execPath} ${EVERYTHING_BIN} stdio`] },
      serve: {
        ...ops,
        trigger: [
          {
            name: 'doc-changed',
            instruction: 'Summarise the change.',
            mcp_resource: { server: 'everything', uri, setup_tool: 'toggle-subscriber-updates' },
            debounce: '100ms',
          },
        ],
      },
    });
    // server-everything starts as its own process first: seconds on a loaded machine.
    await expect
      .poll(() => JSON.stringify(llm.requests[0]?.body), { timeout: 20_000 })
      .toContain('Summarise the change.');
    const prompt = JSON.stringify(llm.requests[0]?.body);
    expect(prompt).toContain(`The resource ${uri} (MCP server \`everything\`) changed`);
    await expect
      .poll(async () => (await tasks(server))[0]?.metadata?.['arbor/trigger'], { timeout: 10_000 })
      .toBe('doc-changed');
  });
});
