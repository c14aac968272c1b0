import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { expect, it } from 'vitest';
import { fakeLlm } from '../helpers/fake-llm.js';
import {
  admitConfig,
  fleetConfig,
  fleetEnv,
  jobsOf,
  MODEL_KEY,
  runOnFleet,
  startWorker,
  SUPERVISOR,
  waitForLog,
} from '../helpers/fleet.js';
import { runArbor } from '../helpers/run-arbor.js';
import { runRecord } from '../helpers/plan-run.js';
import { describeWithRedis, startRedis } from '../helpers/redis.js';

interface Usage {
  input_tokens: number;
  output_tokens: number;
}

interface Report {
  run_id: string;
  status: string;
  result: unknown;
  usage: Usage;
  nodes: { id: string; path: string; status: string; provider?: string }[];
}

/** A model that never stops: every step calls a tool with new arguments and uses `tokens`. */
function endless(tag: string, tokens: number) {
  return Array.from({ length: 200 }, (_, i) => ({
    tool_calls: [{ name: 'memory.set', args: { key: `${tag}-${i}`, value: i } }],
    usage: { input_tokens: tokens, output_tokens: 0 },
  }));
}

describeWithRedis('runs with nodes on fleet workers', () => {
  it('runs the middle node of a three-level delegation on a worker, its child back here', async () => {
    const redis = await startRedis();
    const worker = await startWorker(redis);
    const llm = await fakeLlm({
      scripts: [
        { match: { contains: 'Grandchild: check' }, steps: [{ text: 'facts checked' }] },
        {
          match: { contains: 'Middle: delegate' },
          steps: [
            {
              tool_calls: [
                { name: 'subagent.run', args: { instruction: 'Grandchild: check the facts' } },
              ],
            },
            { text: 'middle done after the check' },
          ],
        },
        {
          match: { contains: 'Coordinate' },
          steps: [
            {
              tool_calls: [
                {
                  name: 'subagent.run',
                  args: { instruction: 'Middle: delegate the check', provider: 'queue' },
                },
              ],
            },
            { text: 'root done' },
          ],
        },
      ],
    });
    const { arbor, db } = runOnFleet(
      redis,
      llm.url,
      ['--config', await fleetConfig()],
      'Coordinate the check.',
    );
    const exit = await arbor.exited;
    expect(exit.code, arbor.stderr.slice(-3000)).toBe(0);
    const report = JSON.parse(arbor.stdout) as Report;
    expect(report.result).toBe('root done');
    expect(report.nodes.map((node) => node.status)).toEqual([
      'completed',
      'completed',
      'completed',
    ]);
    const { events, nodes } = runRecord(db, report.run_id);
    const spawned = events.filter((event) => event.kind === 'node.spawned');
    expect(spawned.map((event) => event.data.provider)).toEqual(['process', 'queue', 'process']);
    const middle = nodes.find((node) => node.instruction.startsWith('Middle'));
    const assigned = events.filter((event) => event.kind === 'fleet.assigned');
    expect(assigned.map((event) => event.nodeId)).toEqual([middle?.id]);
    expect(jobsOf(worker).took).toBe(1);
    // The middle node, on the worker, saw its child's answer: the supervisor served its spawn.
    const middleSaw = llm.requests.some((request) => {
      const text = JSON.stringify(request.body);
      return text.includes('Middle: delegate') && text.includes('facts checked');
    });
    expect(middleSaw).toBe(true);
  });

  it('holds the token ceiling across workers exactly as it does for local children', async () => {
    const redis = await startRedis();
    await Promise.all([1, 2].map(() => startWorker(redis, { concurrency: 1 })));
    const llm = await fakeLlm({
      scripts: [
        { match: { contains: 'Runaway A' }, steps: endless('a', 100) },
        { match: { contains: 'Runaway B' }, steps: endless('b', 100) },
        {
          match: { contains: 'Coordinate' },
          steps: [
            {
              tool_calls: [
                { name: 'subagent.run', args: { instruction: 'Runaway A' } },
                { name: 'subagent.run', args: { instruction: 'Runaway B' } },
              ],
              usage: { input_tokens: 10, output_tokens: 0 },
            },
            { text: 'root saw both', usage: { input_tokens: 10, output_tokens: 0 } },
          ],
        },
      ],
    });
    const limits = ['--max-tokens', '1000', '--max-steps', '1000'];
    const local = runOnFleet(redis, llm.url, limits, 'Coordinate the runaways.');
    const remote = runOnFleet(
      redis,
      llm.url,
      ['--provider', 'queue', ...limits],
      'Coordinate the runaways.',
    );
    const [localExit, remoteExit] = await Promise.all([local.arbor.exited, remote.arbor.exited]);
    const localReport = JSON.parse(local.arbor.stdout) as Report;
    const report = JSON.parse(remote.arbor.stdout) as Report;
    expect(remoteExit.code, remote.arbor.stderr.slice(-2000)).toBe(7);
    expect(localExit.code).toBe(7);
    expect(report.status).toBe('exhausted_tokens');
    // The one ledger, whichever machine the children are on: the same spend, stopped at the
    // ceiling (the root's own first call is counted before its children's).
    const total = (usage: Usage): number => usage.input_tokens + usage.output_tokens;
    expect(total(report.usage)).toBe(total(localReport.usage));
    expect(total(report.usage)).toBeLessThanOrEqual(1010);
    const { events } = runRecord(remote.db, report.run_id);
    expect(events.filter((event) => event.kind === 'fleet.assigned').length).toBeGreaterThan(0);
    expect(
      runRecord(local.db, localReport.run_id).events.some((e) => e.kind.startsWith('fleet.')),
    ).toBe(false);
  });

  it('fails a node clearly on a worker that lacks the model credential', async () => {
    const redis = await startRedis();
    await startWorker(redis, { env: { ARBOR_API_KEY: '' } });
    const llm = await fakeLlm({ scripts: [{ steps: [{ text: 'never asked' }] }] });
    const { arbor } = runOnFleet(redis, llm.url, ['--provider', 'queue'], 'Answer.');
    const exit = await arbor.exited;
    expect(exit.code).not.toBe(0);
    expect(arbor.stderr).toMatch(
      /cannot run node 0: Endpoint 0 \([^)]*\) needs an API key, and this worker's environment has none/,
    );
    expect(llm.requests).toHaveLength(0);
  });

  it('refuses and counts a forged job and a forged frame; the run goes on', async () => {
    const redis = await startRedis();
    const worker = await startWorker(redis);
    const connection = new Redis(redis.secretUrl, { maxRetriesPerRequest: null });
    const queue = new Queue('arbor', { connection });
    try {
      const forgedJob = { body: '{"v":1}', key: SUPERVISOR.identity.publicKey.id, sig: 'AA==' };
      await queue.add('node', forgedJob, { jobId: 'forged-1' });
      await worker.waitForStderr(/refused job forged-1: a job whose signature does not verify/);
      const llm = await fakeLlm({
        scripts: [{ steps: [{ text: 'done despite the forgery', delay_ms: 1500 }] }],
      });
      const { arbor } = runOnFleet(redis, llm.url, ['--provider', 'queue'], 'Answer slowly.');
      const assigned = await arbor.waitForEvent('fleet.assigned');
      await connection.xadd(
        `arbor:fleet:${String(assigned.job)}:up`,
        '*',
        'm',
        '{"s":1,"r":{"k":"frame","line":"{\\"type\\":\\"result\\"}"}}',
        'k',
        worker.identity.identity.publicKey.id,
        'sig',
        'ab'.repeat(32),
      );
      const violation = await arbor.waitForEvent('protocol.violation');
      expect(violation.code).toBe('bad_signature');
      const exit = await arbor.exited;
      expect(exit.code, arbor.stderr.slice(-2000)).toBe(0);
      expect((JSON.parse(arbor.stdout) as Report).result).toBe('done despite the forgery');
      worker.signal('SIGTERM');
      await worker.waitForStderr(/stopped: 1 taken, 1 finished, 1 refused/);
    } finally {
      await queue.close();
      connection.disconnect();
    }
  });

  it('resumes a run whose supervisor died: its nodes are queued again, the orphans stopped', async () => {
    const redis = await startRedis();
    const worker = await startWorker(redis);
    const llm = await fakeLlm({
      scripts: [
        {
          match: { contains: 'Child task' },
          steps: [{ text: 'child answer', delay_ms: 3000 }],
        },
        {
          steps: [
            { tool_calls: [{ name: 'subagent.run', args: { instruction: 'Child task: wait' } }] },
            { text: 'root answer' },
          ],
        },
      ],
    });
    const { arbor, db } = runOnFleet(redis, llm.url, ['--provider', 'queue'], 'Root task.');
    await arbor.waitForEvent('fleet.assigned', (line) => line.path === '0.1');
    const runId = String(arbor.events[0]?.run_id);
    arbor.signal('SIGKILL');
    await arbor.exited;
    const resumed = await runArbor(
      [
        'resume',
        runId,
        '--provider',
        'queue',
        '--config',
        admitConfig(),
        '--intel',
        llm.url,
        '--model',
        'm',
        '--json',
      ],
      { env: { ARBOR_DB: db, ARBOR_API_KEY: MODEL_KEY, ...fleetEnv(redis) } },
    );
    expect(resumed.code, resumed.stderr.slice(-2000)).toBe(0);
    expect((JSON.parse(resumed.stdout) as Report).result).toBe('root answer');
    const queued = runRecord(db, runId).events.filter((event) => event.kind === 'fleet.queued');
    expect(queued.map((event) => event.nodeId)).toEqual(['n0', 'n1', 'n0', 'n1']);
    // The first supervisor's children, cut off from it, are stopped by their worker.
    await waitForLog(worker, (jobs) => jobs.took === 4 && jobs.ended === 4);
  }, 60_000);

  it('drains a worker on SIGTERM, and on a second one hands its node back to another worker', async () => {
    const redis = await startRedis();
    const first = await startWorker(redis);
    const llm = await fakeLlm({
      scripts: [{ steps: [{ text: 'slow answer', delay_ms: 4000 }] }],
    });
    const { arbor, db } = runOnFleet(redis, llm.url, ['--provider', 'queue'], 'Answer slowly.');
    await arbor.waitForEvent('fleet.assigned');
    const second = await startWorker(redis);
    first.signal('SIGTERM');
    await first.waitForStderr(/SIGTERM: draining/);
    // Draining, it takes nothing new, and keeps the node it holds.
    expect(first.child.exitCode).toBeNull();
    first.signal('SIGTERM');
    await first.waitForStderr(/handing the running nodes back/);
    expect((await first.exited).code).toBe(0);
    expect(first.stderr).toMatch(/stopped: 1 taken, 1 finished, 0 refused/);
    const exit = await arbor.exited;
    expect(exit.code, arbor.stderr.slice(-2000)).toBe(0);
    const report = JSON.parse(arbor.stdout) as Report;
    expect(report.result).toBe('slow answer');
    const { events } = runRecord(db, report.run_id);
    const requeue = events.find((event) => event.kind === 'node.requeue');
    expect(requeue?.data).toEqual({ attempt: 2, reason: 'the worker is stopping' });
    expect(jobsOf(second).took).toBe(1);
  }, 60_000);

  it('ends a node no worker takes with a reason that says so, and withdraws its job', async () => {
    const redis = await startRedis();
    const llm = await fakeLlm({ scripts: [{ steps: [{ text: 'never asked' }] }] });
    const { arbor } = runOnFleet(redis, llm.url, ['--provider', 'queue'], 'Answer.', {
      ARBOR_READY_TIMEOUT_MS: '1000',
    });
    const exit = await arbor.exited;
    expect(exit.code).not.toBe(0);
    expect(arbor.stderr).toContain(
      'no fleet worker took the job (is one running for this queue and its labels?)',
    );
    // A worker that starts later finds nothing left to run.
    const late = await startWorker(redis);
    const client = new Redis(redis.secretUrl);
    try {
      expect(await client.llen('bull:arbor:wait')).toBe(0);
    } finally {
      client.disconnect();
    }
    expect(jobsOf(late).took).toBe(0);
    expect(llm.requests).toHaveLength(0);
  });
});
