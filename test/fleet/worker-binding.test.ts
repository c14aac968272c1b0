import { randomUUID } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, beforeAll, expect, it } from 'vitest';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { openFleet, type OpenFleet } from '../../src/config/open-fleet.js';
import { FleetWorker } from '../../src/fleet/fleet-worker.js';
import { PROTOCOL_VERSION, type ProtocolViolation } from '../../src/protocol/index.js';
import type { ChildCommand, ChildHandle, Timing } from '../../src/supervisor/index.js';
import { admitTables, SUPERVISOR, WORKERS, type TestIdentity } from '../helpers/fleet.js';
import { FAST_TIMING, testPayload } from '../helpers/payloads.js';
import { describeWithRedis, startRedis, type TestRedis } from '../helpers/redis.js';

/** A child that runs until it is killed. */
const SLEEPER = { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] };
/** A child that shows it ran: it exits 3. */
const EXIT_3 = { command: process.execPath, args: ['-e', 'process.exit(3)'] };
/** Slow enough that a busy machine never calls a worker of these tests lost by its silence. */
const PATIENT: Timing = { ...FAST_TIMING, pongTimeoutMs: 6_000 };
const [W1, W2] = [WORKERS[0], WORKERS[1]] as [TestIdentity, TestIdentity];

async function waitUntil(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let tries = 0; tries < 500; tries++) {
    if (await check()) return;
    await delay(20);
  }
  throw new Error(`timed out waiting until ${what}`);
}

interface Node {
  child: ChildHandle;
  records: { kind: string; fields: Record<string, unknown> }[];
  violations: ProtocolViolation[];
  job: () => string;
}

describeWithRedis('a node bound to the worker that claimed it', () => {
  let redis: TestRedis;
  const closers: (() => Promise<unknown>)[] = [];

  beforeAll(async () => {
    redis = await startRedis();
  });

  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  /** The supervisor's fleet, as a run opens it, admitting the workers its config file lists. */
  async function supervisor(
    queue: string,
    admitted: TestIdentity[],
  ): Promise<OpenFleet & { config: string }> {
    const config = join(await mkdtemp(join(tmpdir(), 'arbor-binding-')), 'arbor.toml');
    await writeFile(config, admitTables(admitted));
    const fleet = await openFleet(
      {
        url: redis.secretUrl,
        queue,
        labels: [],
        attempts: undefined,
        keyFile: SUPERVISOR.file,
        admit: admitted.map((worker) => ({ name: worker.name, public_key: worker.publicKey })),
        admitFile: config,
      },
      {},
    );
    if (fleet === undefined) throw new Error('no fleet');
    closers.push(() => fleet.close());
    return Object.assign(fleet, { config });
  }

  async function worker(
    identity: TestIdentity,
    queue: string,
    command: ChildCommand,
    labels: string[] = [],
  ): Promise<{ worker: FleetWorker; log: string[] }> {
    const log: string[] = [];
    const started = await FleetWorker.start({
      url: redis.secretUrl,
      identity: identity.identity,
      supervisors: [SUPERVISOR.identity.publicKey],
      queue,
      labels,
      concurrency: 2,
      workspace: await mkdtemp(join(tmpdir(), 'arbor-binding-worker-')),
      command,
      secrets: { env: {}, servers: new Map(), sandbox: { mode: 'off' } },
      ladder: { cancelGraceMs: 100, termGraceMs: 100, killWaitMs: 100 },
      log: (line) => log.push(line),
    });
    closers.push(() => started.drain());
    return { worker: started, log };
  }

  function start(fleet: OpenFleet, attempt: number): Node {
    const node: Omit<Node, 'child'> = {
      records: [],
      violations: [],
      job: () => String(node.records.find((r) => r.kind === 'fleet.queued')?.fields.job),
    };
    const child = fleet.start(testPayload(), {
      fleet,
      node: { runId: 'run_bind', nodeId: 'n1', path: '0.1' },
      attempt,
      timing: PATIENT,
      record: (kind, fields) => node.records.push({ kind, fields }),
    });
    child.attach({
      onFrame: () => undefined,
      onViolation: (violation) => node.violations.push(violation),
    });
    child.send({ type: 'spawn', protocol: PROTOCOL_VERSION, payload: testPayload() });
    return { ...node, child };
  }

  const assignedTo = (node: Node): unknown =>
    node.records.find((r) => r.kind === 'fleet.assigned')?.fields.name;

  it('refuses a replayed job: a second worker that takes it is refused and starts nothing', async () => {
    const base = `bind-${randomUUID().slice(0, 8)}`;
    const fleet = await supervisor(base, [W1, W2]);
    const first = await worker(W1, base, SLEEPER);
    const node = start(fleet, 1);
    await waitUntil(() => assignedTo(node) === W1.name, 'the first worker claimed the node');
    // Someone with Redis copies the signed job, id and all, to a queue the second worker reads.
    const second = await worker(W2, base, EXIT_3, ['gpu']);
    const client = new Redis(redis.secretUrl, { maxRetriesPerRequest: null });
    closers.push(() => client.quit());
    const original = new Queue(base, { connection: client.duplicate() });
    const replayed = new Queue(`${base}.gpu`, { connection: client.duplicate() });
    closers.push(() => Promise.all([original.close(), replayed.close()]));
    const job = await original.getJob(node.job());
    await replayed.add('node', job?.data, { jobId: node.job() });
    await waitUntil(() => second.worker.counts.finished === 1, 'the second worker gave up');
    expect(second.log.at(-1)).toMatch(
      /^ended .*: claim not accepted: the supervisor bound the node to another worker \(.*, key [0-9a-f]{16}\)$/,
    );
    // Its claim was refused and counted; the node stays with the first worker.
    expect(node.violations.map((v) => [v.code, v.reason])).toEqual([
      [
        'bad_signature',
        `refused an entry signed by key ${W2.identity.publicKey.id}, not the key of worker ${W1.name}, to which the node is bound`,
      ],
    ]);
    expect(node.child.hasExited()).toBe(false);
    node.child.signalGroup('SIGKILL');
    expect(await node.child.exited).toMatchObject({ code: null, signal: 'SIGKILL' });
    await waitUntil(() => first.worker.counts.finished === 1, 'the first worker ended the job');
    expect(first.worker.counts.taken).toBe(1);
  });

  it('revokes a worker without a restart: its node is lost, and the next attempt runs elsewhere', async () => {
    const base = `bind-${randomUUID().slice(0, 8)}`;
    const fleet = await supervisor(base, [W1, W2]);
    const revoked = await worker(W1, base, SLEEPER);
    const attempt1 = start(fleet, 1);
    await waitUntil(() => assignedTo(attempt1) === W1.name, 'the worker claimed the node');
    // The operator removes its entry from the supervisor's config.
    await writeFile(fleet.config, admitTables([W2]));
    const lost = await attempt1.child.exited;
    const reason = `worker ${W1.name} (key ${W1.identity.publicKey.id}) is no longer admitted`;
    expect(lost).toMatchObject({ code: null, lost: reason });
    expect(attempt1.records.map((r) => r.kind)).toEqual([
      'fleet.queued',
      'fleet.assigned',
      'fleet.lost',
    ]);
    // Told to kill its child, the revoked worker ends the job.
    await waitUntil(() => revoked.worker.counts.finished === 1, 'the revoked worker ended its job');
    // The node's next attempt: the revoked worker takes it, is refused, hands it back and stops.
    const attempt2 = start(fleet, 2);
    await expect(revoked.worker.notAdmitted).resolves.toBe(
      `a supervisor (key ${SUPERVISOR.identity.publicKey.id}) does not admit this worker's key (${W1.identity.publicKey.id})`,
    );
    expect(attempt2.violations.map((v) => v.reason)).toEqual([
      `refused an entry signed by key ${W1.identity.publicKey.id}, which no \`[[queue.admit]]\` entry of the supervisor admits`,
    ]);
    const other = await worker(W2, base, EXIT_3);
    expect(await attempt2.child.exited).toEqual({ code: 3, signal: null });
    expect(assignedTo(attempt2)).toBe(W2.name);
    await waitUntil(() => other.worker.counts.finished === 1, 'the other worker ended the job');
    expect(other.worker.counts.taken).toBe(1);
  });
});
