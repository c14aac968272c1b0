import { randomUUID } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, expect, it } from 'vitest';
import { Queue, QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import {
  open,
  signJob,
  UpRecordSchema,
  type JobBody,
  type UpRecord,
} from '../../src/fleet/envelope.js';
import { Fleet, STREAM_PREFIX } from '../../src/fleet/fleet.js';
import { FleetKey } from '../../src/fleet/fleet-key.js';
import { FleetWorker, type FleetWorkerOptions } from '../../src/fleet/fleet-worker.js';
import { PROTOCOL_VERSION, redactPayload } from '../../src/protocol/index.js';
import { FLEET_KEY } from '../helpers/fleet.js';
import { FAST_TIMING, fixtureChild, testPayload } from '../helpers/payloads.js';
import { describeWithRedis, startRedis, type TestRedis } from '../helpers/redis.js';

const key = FleetKey.fromEnv({ ARBOR_FLEET_KEY: FLEET_KEY });
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
      key,
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

  /** The records a worker wrote on `up`, each checked against its MAC and place. */
  async function upRecords(client: Redis, up: string): Promise<UpRecord[]> {
    const entries = await client.xrange(up, '-', '+');
    return entries.map(([, fields], seq) => {
      const opened = open(key, up, fields, seq, UpRecordSchema);
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
    ['a forged MAC', (id: string) => ({ ...signJob(key, id, body(id)), mac: 'ab'.repeat(32) })],
    ['a MAC for another job id', (id: string) => signJob(key, `${id}-other`, body(id))],
    [
      'a MAC under another key',
      (id: string) => signJob(FleetKey.fromEnv({ ARBOR_FLEET_KEY: 'y'.repeat(40) }), id, body(id)),
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

  it('writes nothing after the exit record, which the supervisor deletes the streams on', async () => {
    const { add, client } = await setup();
    const jobId = `job-${randomUUID().slice(0, 8)}`;
    // A beat every millisecond: one written after the exit would make `up` again once the
    // supervisor has deleted it, and that one would never expire.
    const job = body(jobId, { ping_ms: 1 });
    await add(jobId, signJob(key, jobId, job));
    const kinds = (await upRecords(client, job.up)).map((record) => record.k);
    expect(kinds.filter((kind) => kind === 'beat').length).toBeGreaterThan(0);
    expect(kinds.indexOf('exit')).toBe(kinds.length - 1);
  });

  it('ends a job needing an MCP server it does not name, saying so, without running it', async () => {
    const { client, add } = await setup();
    const jobId = `job-${randomUUID().slice(0, 8)}`;
    const payload = redactPayload(
      testPayload({ mcp_servers: [{ name: 'gh', command: 'gh-mcp' }] }),
    );
    const job = body(jobId, { payload });
    await add(jobId, signJob(key, jobId, job));
    const exit = (await upRecords(client, job.up)).at(-1);
    expect(exit).toMatchObject({ k: 'exit', code: null });
    expect(exit?.k === 'exit' ? exit.error : '').toMatch(
      /cannot run node 0\.1: The node needs MCP server `gh`/,
    );
  });

  it("runs a supervisor's node and relays its exit back", async () => {
    const { worker, base, log } = await setup();
    const fleet = await Fleet.connect({ url: redis.secretUrl, key, queue: base });
    closers.push(() => fleet.close());
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
    const fleet = await Fleet.connect({ url: redis.secretUrl, key, queue: base });
    closers.push(() => fleet.close());
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
