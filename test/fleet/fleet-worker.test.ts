import { randomUUID } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, expect, it } from 'vitest';
import { Queue, QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import { AdmittedWorkers } from '../../src/fleet/admitted-workers.js';
import {
  entryFields,
  open,
  seal,
  signJob,
  UpRecordSchema,
  type JobBody,
  type UpRecord,
} from '../../src/fleet/envelope.js';
import { Fleet, STREAM_PREFIX } from '../../src/fleet/fleet.js';
import { FleetIdentity } from '../../src/fleet/fleet-identity.js';
import { FleetWorker, type FleetWorkerOptions } from '../../src/fleet/fleet-worker.js';
import { PROTOCOL_VERSION, redactPayload } from '../../src/protocol/index.js';
import { SUPERVISOR, WORKERS } from '../helpers/fleet.js';
import { FAST_TIMING, fixtureChild, testPayload } from '../helpers/payloads.js';
import { describeWithRedis, startRedis, type TestRedis } from '../helpers/redis.js';

const key = SUPERVISOR.identity;
const own = (WORKERS[0] ?? SUPERVISOR).identity;
/** A child that would show it ran: it exits 3. */
const EXIT_3 = { command: process.execPath, args: ['-e', 'process.exit(3)'] };

describeWithRedis('FleetWorker', () => {
  let redis: TestRedis;
  const closers: (() => Promise<unknown>)[] = [];

  beforeAll(async () => {
    redis = await startRedis();
  });

  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  /** A worker on a queue of its own, with a client, a queue and its events to drive it. */
  async function setup(
    labels: string[] = [],
    place: Partial<Pick<FleetWorkerOptions, 'command' | 'secrets'>> = {},
  ): Promise<{
    worker: FleetWorker;
    log: string[];
    base: string;
    client: Redis;
    add: (jobId: string, data: unknown, queueName?: string) => Promise<unknown>;
  }> {
    const base = `fw-${randomUUID().slice(0, 8)}`;
    const log: string[] = [];
    const worker = await FleetWorker.start({
      url: redis.secretUrl,
      identity: own,
      supervisors: [key.publicKey],
      queue: base,
      labels,
      concurrency: 2,
      workspace: await mkdtemp(join(tmpdir(), 'arbor-fleet-worker-')),
      command: place.command ?? EXIT_3,
      secrets: place.secrets ?? { env: {}, servers: new Map(), sandbox: { mode: 'off' } },
      ladder: { cancelGraceMs: 100, termGraceMs: 100, killWaitMs: 100 },
      log: (line) => log.push(line),
    });
    closers.push(() => worker.drain());
    const client = new Redis(redis.secretUrl, { maxRetriesPerRequest: null });
    closers.push(() => client.quit());
    const add = async (jobId: string, data: unknown, queueName = base): Promise<unknown> => {
      const queue = new Queue(queueName, { connection: client.duplicate() });
      const events = new QueueEvents(queueName, { connection: client.duplicate() });
      closers.push(async () => {
        await Promise.all([queue.close(), events.close()]);
        await queue.disconnect();
      });
      await events.waitUntilReady();
      const job = await queue.add('node', data, { jobId });
      return job.waitUntilFinished(events, 20_000);
    };
    return { worker, log, base, client, add };
  }

  function body(jobId: string, overrides: Partial<JobBody> = {}): JobBody {
    const streams = `${STREAM_PREFIX}:${jobId}`;
    return {
      v: 1,
      run_id: 'run_fw',
      node_id: 'n1',
      path: '0.1',
      attempt: 1,
      up: `${streams}:up`,
      down: `${streams}:down`,
      payload: redactPayload(testPayload()),
      keyed: [],
      ping_ms: 1_000,
      expires_at: Date.now() + 60_000,
      ...overrides,
    };
  }

  /** A fleet of the supervisor's on `base`, admitting the test worker. */
  async function fleetOn(base: string): Promise<Fleet> {
    const fleet = await Fleet.connect({
      url: redis.secretUrl,
      identity: key,
      admitted: new AdmittedWorkers([{ name: 'w1', key: own.publicKey }]),
      queue: base,
    });
    closers.push(() => fleet.close());
    return fleet;
  }

  /**
   * What a supervisor would do once the worker claims the job: accept its claim. Written ahead: the
   * worker reads its down stream from the start.
   */
  async function accept(client: Redis, job: JobBody, worker: FleetWorker): Promise<void> {
    const record = { k: 'accept', key: own.publicKey.id, worker: worker.id } as const;
    await client.xadd(job.down, '*', ...entryFields(seal(key, job.down, 0, record)));
  }

  /** The records a worker wrote on `up`, each checked against its signature and place. */
  async function upRecords(client: Redis, up: string): Promise<UpRecord[]> {
    const entries = await client.xrange(up, '-', '+');
    return entries.map(([, fields], seq) => {
      const opened = open(
        (id) => (id === own.publicKey.id ? own.publicKey : 'not the worker'),
        up,
        fields,
        seq,
        UpRecordSchema,
      );
      if (!opened.ok) throw new Error(opened.reason);
      return opened.record;
    });
  }

  it('listens on a queue for each subset of its labels', async () => {
    const { worker, base } = await setup(['gpu', 'rust']);
    expect([...worker.queues].sort()).toEqual(
      [base, `${base}.gpu`, `${base}.rust`, `${base}.gpu+rust`].sort(),
    );
  });

  it.each([
    [
      'a forged signature',
      (id: string) => ({ ...signJob(key, id, body(id)), sig: `${'A'.repeat(86)}==` }),
    ],
    ['a signature for another job id', (id: string) => signJob(key, `${id}-other`, body(id))],
    [
      'a signature by an unknown key',
      (id: string) => signJob(FleetIdentity.generate().identity, id, body(id)),
    ],
    // What a worker's stolen key is good for: minting a job no honest worker will run.
    ['a worker’s signature', (id: string) => signJob(own, id, body(id))],
    [
      "a worker's signature naming the supervisor's key",
      (id: string) => ({ ...signJob(own, id, body(id)), key: key.publicKey.id }),
    ],
    ['an unsigned body', (id: string) => body(id)],
  ])('refuses a job with %s, counts it and runs nothing', async (_, make) => {
    const { worker, log, client, add } = await setup();
    const jobId = `job-${randomUUID().slice(0, 8)}`;
    const returned = await add(jobId, make(jobId));
    expect(returned).toMatchObject({ refused: expect.stringMatching(/^a job /) as unknown });
    expect(worker.counts).toEqual({ taken: 0, finished: 0, refused: 1 });
    expect(log.some((line) => line.startsWith(`refused job ${jobId}: a job `))).toBe(true);
    // Not even a `hello`: nothing went up its stream.
    expect(await client.exists(body(jobId).up)).toBe(0);
  });

  it('takes a job from the queue of a subset of its labels', async () => {
    const { worker, base, client, add } = await setup(['gpu', 'rust']);
    const jobId = `job-${randomUUID().slice(0, 8)}`;
    const stale = body(jobId, { expires_at: Date.now() - 1_000 });
    await add(jobId, signJob(key, jobId, stale), `${base}.gpu`);
    expect(worker.counts).toMatchObject({ taken: 1, refused: 0 });
    expect((await upRecords(client, stale.up))[0]).toEqual({
      k: 'hello',
      worker: worker.id,
      host: expect.any(String) as unknown,
    });
  });

  it('says hello and ends a stale job without running it', async () => {
    const { worker, client, add } = await setup();
    const jobId = `job-${randomUUID().slice(0, 8)}`;
    const stale = body(jobId, { expires_at: Date.now() - 1_000 });
    const returned = await add(jobId, signJob(key, jobId, stale));
    expect(returned).toEqual({ code: null, refused: 'the job was stale when a worker took it' });
    expect(await upRecords(client, stale.up)).toEqual([
      { k: 'hello', worker: worker.id, host: expect.any(String) as unknown },
      { k: 'exit', code: null, signal: null, error: 'the job was stale when a worker took it' },
    ]);
    // Kept a while should the supervisor never delete it, not for ever.
    expect(await client.ttl(stale.up)).toBeGreaterThan(0);
    expect(worker.counts).toEqual({ taken: 1, finished: 1, refused: 0 });
  });

  it('refuses a job added back under the id of one it took, without running it again', async () => {
    const { worker, client, add, base } = await setup();
    const jobId = `job-${randomUUID().slice(0, 8)}`;
    const job = signJob(key, jobId, body(jobId));
    await accept(client, body(jobId), worker);
    expect(await add(jobId, job)).toEqual({ code: 3 });
    // What someone with the queue's Redis could do: take the finished job out and add it again.
    const queue = new Queue(base, { connection: client.duplicate() });
    closers.push(async () => {
      await queue.close();
      await queue.disconnect();
    });
    await queue.remove(jobId);
    expect(await add(jobId, job)).toEqual({ refused: `job ${jobId} was taken here before` });
    expect(worker.counts).toEqual({ taken: 1, finished: 1, refused: 1 });
  });

  it.each([
    ['another key', WORKERS[1]?.identity.publicKey.id ?? '', undefined],
    ['its own key, but another process', own.publicKey.id, 'host/1/other'],
  ])(
    'starts nothing when the supervisor bound the node to another worker (%s), and writes no more',
    async (_, keyId, workerId) => {
      const { worker, client, add, log } = await setup();
      const jobId = `job-${randomUUID().slice(0, 8)}`;
      const job = body(jobId);
      const bound = workerId ?? worker.id;
      await client.xadd(
        job.down,
        '*',
        ...entryFields(seal(key, job.down, 0, { k: 'accept', key: keyId, worker: bound })),
      );
      const reason = `claim not accepted: the supervisor bound the node to another worker (${bound}, key ${keyId})`;
      // The child would exit 3: `code: null` says it never started.
      expect(await add(jobId, signJob(key, jobId, job))).toEqual({ code: null, refused: reason });
      expect((await upRecords(client, job.up)).map((record) => record.k)).toEqual(['hello']);
      expect(worker.counts).toMatchObject({ taken: 1, finished: 1 });
      expect(log.some((line) => line.endsWith(`: ${reason}`))).toBe(true);
    },
  );

  it('drops down records not signed by the supervisor that signed the job', async () => {
    const { worker, client, add, log } = await setup();
    const jobId = `job-${randomUUID().slice(0, 8)}`;
    const job = body(jobId);
    // A worker's forged `accept` and forged SIGKILL: neither is taken.
    const forged = (seq: number, record: Parameters<typeof seal>[3]): string[] =>
      entryFields(seal(own, job.down, seq, record));
    const selfAccept = { k: 'accept', key: own.publicKey.id, worker: worker.id } as const;
    await client.xadd(job.down, '*', ...forged(0, selfAccept));
    await accept(client, job, worker);
    await client.xadd(job.down, '*', ...forged(1, { k: 'signal', signal: 'SIGKILL' }));
    expect(await add(jobId, signJob(key, jobId, job))).toEqual({ code: 3 });
    const refused = log.filter((line) => line.startsWith('refused an entry signed by key'));
    expect(refused).toHaveLength(2);
    expect(refused[0]).toContain('not the key of the supervisor that signed the job');
  });

  it('writes nothing after the exit record, which the supervisor deletes the streams on', async () => {
    const { worker, add, client } = await setup();
    const jobId = `job-${randomUUID().slice(0, 8)}`;
    // A beat every millisecond: one written after the exit would make `up` again once the
    // supervisor has deleted it, and that one would never expire.
    const job = body(jobId, { ping_ms: 1 });
    await accept(client, job, worker);
    await add(jobId, signJob(key, jobId, job));
    const kinds = (await upRecords(client, job.up)).map((record) => record.k);
    expect(kinds.filter((kind) => kind === 'beat').length).toBeGreaterThan(0);
    expect(kinds.indexOf('exit')).toBe(kinds.length - 1);
  });

  it('ends a job needing an MCP server it does not name, saying so, without running it', async () => {
    const { worker, client, add } = await setup();
    const jobId = `job-${randomUUID().slice(0, 8)}`;
    const payload = redactPayload(
      testPayload({ mcp_servers: [{ name: 'gh', command: 'gh-mcp' }] }),
    );
    const job = body(jobId, { payload });
    await accept(client, job, worker);
    await add(jobId, signJob(key, jobId, job));
    const exit = (await upRecords(client, job.up)).at(-1);
    expect(exit).toMatchObject({ k: 'exit', code: null });
    expect(exit?.k === 'exit' ? exit.error : '').toMatch(
      /cannot run node 0\.1: The node needs MCP server `gh`/,
    );
  });

  it("runs a supervisor's node and relays its exit back", async () => {
    const { worker, base, log } = await setup();
    const fleet = await fleetOn(base);
    const records: { kind: string; fields: Record<string, unknown> }[] = [];
    const child = fleet.start(testPayload(), {
      fleet,
      node: { runId: 'run_fw', nodeId: 'n1', path: '0.1' },
      attempt: 1,
      // Patient: a busy machine never calls this worker lost by its silence.
      timing: { ...FAST_TIMING, pongTimeoutMs: 6_000 },
      record: (kind, fields) => records.push({ kind, fields }),
    });
    child.attach({ onFrame: () => undefined, onViolation: () => undefined });
    child.send({ type: 'spawn', protocol: PROTOCOL_VERSION, payload: testPayload() });
    const exit = await child.exited;
    expect(exit).toEqual({ code: 3, signal: null });
    expect(records.map((r) => r.kind)).toEqual(['fleet.queued', 'fleet.assigned']);
    expect(records[1]?.fields).toMatchObject({ worker: worker.id, attempt: 1 });
    await worker.drain();
    expect(worker.counts).toEqual({ taken: 1, finished: 1, refused: 0 });
    expect(log.some((line) => /^ended .*: code 3, signal null$/.test(line))).toBe(true);
  });

  it("runs the egress proxy for the nodes it hosts: a refusal is recorded as the node's", async () => {
    const { base } = await setup([], {
      command: fixtureChild('egress-probe'),
      secrets: { env: {}, servers: new Map(), sandbox: { mode: 'bwrap' } },
    });
    const fleet = await fleetOn(base);
    const records: { kind: string; fields: Record<string, unknown> }[] = [];
    const payload = testPayload({
      caveats: { fs_read: [], fs_write: [], exec: 'all', net: ['example.com'] },
    });
    const child = fleet.start(payload, {
      fleet,
      node: { runId: 'run_fw', nodeId: 'n1', path: '0.1' },
      attempt: 1,
      timing: { ...FAST_TIMING, pongTimeoutMs: 6_000 },
      record: (kind, fields) => records.push({ kind, fields }),
    });
    const stderr: string[] = [];
    child.attach({
      onFrame: () => undefined,
      onViolation: () => undefined,
      onStderr: (line) => stderr.push(line),
    });
    child.send({ type: 'spawn', protocol: PROTOCOL_VERSION, payload });
    const exit = await child.exited;
    expect(exit, stderr.join('\n')).toEqual({ code: 0, signal: null });
    expect(stderr).toContain('proxied: 403');
    expect(records).toContainEqual({
      kind: 'net.refused',
      fields: expect.objectContaining({ host: '10.0.0.1', port: 80, command: 'probe' }) as unknown,
    });
  });
});
