import { readFileSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ArborProcess } from '../helpers/arbor-process.js';
import { fakeLlm } from '../helpers/fake-llm.js';
import { admitTables, fleetEnv, jobsOf, MODEL_KEY, startWorker } from '../helpers/fleet.js';
import { EXEC_AND_WRITE_POLICY } from '../helpers/policy-fixture.js';
import { describeWithRedis, startRedis } from '../helpers/redis.js';
import { runArbor } from '../helpers/run-arbor.js';

describeWithRedis('policy for a node on a worker', () => {
  it('allows, denies and asks through the supervisor, and the grant holds on the worker', async () => {
    const redis = await startRedis();
    const work = await mkdtemp(join(tmpdir(), 'arbor-fleet-work-'));
    const worker = await startWorker(redis, { args: ['--workspace', work] });
    const config = join(work, 'arbor.toml');
    await writeFile(config, `${EXEC_AND_WRITE_POLICY}\n${admitTables()}`);
    const llm = await fakeLlm({
      scripts: [
        {
          steps: [
            {
              tool_calls: [
                { name: 'exec', args: { command: 'echo allowed' } },
                { name: 'exec', args: { command: 'cat /etc/passwd' } },
                { name: 'fs.read', args: { path: '/etc/hostname' } },
              ],
            },
            // Steps are picked by how many tool results the conversation holds: three, then four.
            { text: 'unused' },
            { text: 'unused' },
            { tool_calls: [{ name: 'fs.write', args: { path: 'out.txt', content: 'written' } }] },
            { text: 'done' },
          ],
        },
      ],
    });
    const db = join(work, 'arbor.db');
    const arbor = new ArborProcess(
      [
        'run',
        '--provider',
        'queue',
        '--intel',
        llm.url,
        '--model',
        'm',
        '--config',
        config,
        '--ask-fallback',
        'wait',
        '--fs-write',
        work,
        '--events',
        'ndjson',
        'Work.',
      ],
      { cwd: work, env: { ARBOR_DB: db, ARBOR_API_KEY: MODEL_KEY, ...fleetEnv(redis) } },
    );
    const gate = await arbor.waitForEvent('gate.open');
    expect(gate.question).toBe('May the agent write out.txt?');
    const answered = await runArbor(
      ['gate', 'answer', String(gate.run_id), String(gate.gate), 'yes'],
      {
        env: { ARBOR_DB: db },
      },
    );
    expect(answered.code).toBe(0);
    expect((await arbor.exited).code, arbor.stderr.slice(-2000)).toBe(0);
    const decisions = arbor.events
      .filter((e) => e.event === 'policy.decision')
      .map((e) => [e.tool, e.action, e.rule]);
    expect(decisions).toEqual([
      ['exec', 'allow', 0],
      ['exec', 'deny', 1],
      ['fs.write', 'ask', 2],
    ]);
    expect(jobsOf(worker).took).toBe(1);
    // The allowed command ran on the worker, in its sandbox; the denied one never ran.
    const results = JSON.stringify(llm.requests.at(-1)?.body);
    expect(results).toContain('allowed');
    expect(results).toContain('refused by policy rule [1] (deny): no other shell commands');
    // A read outside the grant was refused on the worker; the asked-for write landed there.
    expect(results).toMatch(/\/etc\/hostname[^"]*outside/);
    expect(readFileSync(join(work, 'out.txt'), 'utf8')).toBe('written');
  });
});
