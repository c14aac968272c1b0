import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ArborProcess } from '../helpers/arbor-process.js';
import { fakeLlm } from '../helpers/fake-llm.js';
import {
  admitConfig,
  dumpRedis,
  fleetEnv,
  jobsOf,
  privateKeyForms,
  MODEL_KEY,
  startWorker,
  waitForLog,
} from '../helpers/fleet.js';
import { runRecord, type PlanReport } from '../helpers/plan-run.js';
import { describeWithRedis, startRedis } from '../helpers/redis.js';

/** A plan of `count` independent leaves, `Leaf 7: answer 7.` and so on. */
function leavesPlan(count: number): string {
  const leaves = Array.from(
    { length: count },
    (_, i) =>
      `[[subtask]]\nid = "l${i}"\ninstruction = "Leaf ${i}: answer ${i}."\nparallel_ok = true\n`,
  );
  return `goal = "Many leaves"\n\n${leaves.join('\n')}`;
}

/** Runs `arbor plan run plan.toml --provider queue` in a directory of its own. */
async function planOnFleet(
  plan: string,
  llmUrl: string,
  env: NodeJS.ProcessEnv,
  args: string[] = [],
): Promise<{ arbor: ArborProcess; dir: string; db: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'arbor-fleet-plan-'));
  await writeFile(join(dir, 'plan.toml'), plan);
  const db = join(dir, 'arbor.db');
  const arbor = new ArborProcess(
    [
      'plan',
      'run',
      'plan.toml',
      '--provider',
      'queue',
      '--intel',
      llmUrl,
      '--model',
      'm',
      '--json',
      '--events',
      'ndjson',
      ...(args.includes('--config') ? [] : ['--config', admitConfig()]),
      ...args,
    ],
    { cwd: dir, env: { ARBOR_DB: db, ARBOR_API_KEY: MODEL_KEY, ...env } },
  );
  return { arbor, dir, db };
}

describeWithRedis('a plan on a fleet of three workers', () => {
  it('runs 200 leaves, each exactly once, spread over all three, and leaves no credential in Redis', async () => {
    const redis = await startRedis();
    // Two cores run three workers, twelve children and the supervisor: liveness is given the
    // default pong window, so no busy moment passes for a lost worker.
    const patient = { ARBOR_PONG_TIMEOUT_MS: '10000' };
    const workers = await Promise.all([1, 2, 3].map(() => startWorker(redis, { env: patient })));
    const llm = await fakeLlm({
      scripts: [{ match: { contains: 'Leaf ' }, steps: [{ text: 'leaf done' }] }],
    });
    const { arbor, db } = await planOnFleet(
      leavesPlan(200),
      llm.url,
      { ...fleetEnv(redis), ...patient },
      ['--concurrency', '12'],
    );
    const exit = await arbor.exited;
    expect(exit.code, arbor.stderr.slice(-3000)).toBe(0);
    const report = JSON.parse(arbor.stdout) as PlanReport;
    expect(report.leaves).toHaveLength(200);
    expect(report.leaves.every((leaf) => leaf.status === 'done')).toBe(true);
    // Each leaf's one model call was made once: no leaf ran twice.
    for (let i = 0; i < 200; i++) {
      const calls = llm.requests.filter((request) =>
        JSON.stringify(request.body).includes(`Leaf ${i}: answer ${i}.`),
      );
      expect(calls, `Leaf ${i}`).toHaveLength(1);
    }
    const taken = workers.map((worker) => jobsOf(worker).took);
    expect(taken.reduce((a, b) => a + b, 0)).toBe(200);
    for (const count of taken) expect(count).toBeGreaterThan(0);
    // The store says where each leaf ran: one assignment per leaf, by a worker of the three.
    const { events } = runRecord(db, report.run_id);
    const assigned = events.filter((event) => event.kind === 'fleet.assigned');
    expect(assigned).toHaveLength(200);
    expect(new Set(assigned.map((event) => event.data.worker)).size).toBe(3);
    // Bound to the admitted worker that claimed it, by name and key id.
    expect(new Set(assigned.map((event) => event.data.name))).toEqual(
      new Set(workers.map((worker) => worker.identity.name)),
    );
    // Nothing secret sits in Redis: not the model key, not Redis's password, no private key.
    const { keys, text } = await dumpRedis(redis);
    expect(text).not.toContain(MODEL_KEY);
    expect(text).not.toContain(redis.password);
    for (const form of privateKeyForms()) expect(text).not.toContain(form);
    // The streams went with their nodes.
    expect(keys.filter((key) => key.startsWith('arbor:fleet:run_'))).toEqual([]);
  }, 240_000);

  it('finishes the leaves of a worker SIGKILLed mid-run on the others, each attempt recorded', async () => {
    const redis = await startRedis();
    const workers = await Promise.all([1, 2, 3].map(() => startWorker(redis, { concurrency: 2 })));
    const llm = await fakeLlm({
      scripts: [{ match: { contains: 'Leaf ' }, steps: [{ text: 'leaf done', delay_ms: 1500 }] }],
    });
    const { arbor, db } = await planOnFleet(leavesPlan(12), llm.url, fleetEnv(redis), [
      '--concurrency',
      '6',
    ]);
    const victim = workers[0]!;
    await waitForLog(victim, (jobs) => jobs.took >= 1);
    victim.signal('SIGKILL');
    const exit = await arbor.exited;
    expect(exit.code, arbor.stderr.slice(-3000)).toBe(0);
    const report = JSON.parse(arbor.stdout) as PlanReport;
    expect(report.leaves.every((leaf) => leaf.status === 'done')).toBe(true);
    const { events } = runRecord(db, report.run_id);
    const requeued = events.filter((event) => event.kind === 'node.requeue');
    expect(requeued.length).toBeGreaterThan(0);
    // Every node the dead worker held was queued again and finished on a worker that lived (a
    // worker killed between taking a job and saying so is caught by liveness, not its silence).
    const victimId = /arbor worker: (\S+) taking jobs/.exec(victim.stderr)?.[1];
    for (const { nodeId } of requeued) {
      const of = (kind: string) =>
        events.filter((event) => event.kind === kind && event.nodeId === nodeId);
      expect(of('fleet.queued').length).toBeGreaterThanOrEqual(2);
      expect(of('fleet.lost').length).toBeGreaterThanOrEqual(1);
      expect(of('fleet.assigned').at(-1)?.data.worker).not.toBe(victimId);
      expect(of('node.end').at(-1)?.data.status).toBe('completed');
    }
  }, 120_000);

  it('stops the children on every worker when the run is cancelled', async () => {
    const redis = await startRedis();
    const workers = await Promise.all([1, 2, 3].map(() => startWorker(redis, { concurrency: 2 })));
    const llm = await fakeLlm({
      scripts: [{ match: { contains: 'Leaf ' }, steps: [{ text: 'never', delay_ms: 60_000 }] }],
    });
    const { arbor } = await planOnFleet(leavesPlan(6), llm.url, fleetEnv(redis), [
      '--concurrency',
      '6',
    ]);
    // Six slots for six leaves: each worker holds two.
    await Promise.all(workers.map((worker) => waitForLog(worker, (jobs) => jobs.took === 2)));
    // Each worker has said so on the node's stream: the six up streams exist.
    await arbor.waitUntil(
      () => arbor.events.filter((line) => line.event === 'fleet.assigned').length === 6,
      'six nodes were assigned',
    );
    const { keys, text } = await dumpRedis(redis);
    expect(keys.filter((key) => /^arbor:fleet:run_.*:up$/.test(key))).toHaveLength(6);
    expect(text).not.toContain(MODEL_KEY);
    expect(text).not.toContain(redis.password);
    for (const form of privateKeyForms()) expect(text).not.toContain(form);
    arbor.signal('SIGINT');
    const exit = await arbor.exited;
    expect(exit.code).toBe(130);
    await Promise.all(workers.map((worker) => waitForLog(worker, (jobs) => jobs.ended === 2)));
    for (const worker of workers) expect(worker.child.exitCode).toBeNull();
  }, 120_000);
});
