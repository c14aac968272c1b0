import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, beforeAll, expect, it } from 'vitest';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { AdmittedWorkers } from '../../src/fleet/admitted-workers.js';
import {
  DownRecordSchema,
  entryFields as fieldsOf,
  open,
  openJob,
  seal,
  type KeyLookup,
  type UpRecord,
} from '../../src/fleet/envelope.js';
import { Fleet, STREAM_PREFIX } from '../../src/fleet/fleet.js';
import { FleetIdentity } from '../../src/fleet/fleet-identity.js';
import {
  PROTOCOL_VERSION,
  type AgentFrame,
  type ProtocolViolation,
} from '../../src/protocol/index.js';
import type { ChildHandle, Timing } from '../../src/supervisor/index.js';
import { SUPERVISOR, WORKERS } from '../helpers/fleet.js';
import { FAST_TIMING, testPayload } from '../helpers/payloads.js';
import { describeWithRedis, startRedis, type TestRedis } from '../helpers/redis.js';

const supervisor: KeyLookup = (id) =>
  id === SUPERVISOR.identity.publicKey.id ? SUPERVISOR.identity.publicKey : 'not the supervisor';
const [W1, W2] = [WORKERS[0], WORKERS[1]].map((worker) => {
  if (worker === undefined) throw new Error('two test workers');
  return worker.identity;
}) as [FleetIdentity, FleetIdentity];
const admitted = (): AdmittedWorkers =>
  new AdmittedWorkers([
    { name: 'w1', key: W1.publicKey },
    { name: 'w2', key: W2.publicKey },
  ]);
const MODEL_KEY = 'sk-remote-child-SECRET';
/** Slow enough that a busy machine never calls a worker of these tests lost by its silence. */
const PATIENT: Timing = { ...FAST_TIMING, pongTimeoutMs: 6_000 };

/** Polls `check` every 20 ms until it holds, for at most 10 s. */
async function waitUntil(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let tries = 0; tries < 500; tries++) {
    if (await check()) return;
    await delay(20);
  }
  throw new Error(`timed out waiting until ${what}`);
}

interface Started {
  child: ChildHandle;
  jobId: string;
  up: string;
  down: string;
  records: { kind: string; fields: Record<string, unknown> }[];
  frames: AgentFrame[];
  violations: ProtocolViolation[];
}

describeWithRedis('RemoteChild on a Fleet', () => {
  let redis: TestRedis;
  let client: Redis;
  let queueName: string;
  const closers: (() => Promise<unknown>)[] = [];

  beforeAll(async () => {
    redis = await startRedis();
  });

  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  async function start(timing: Timing = PATIENT): Promise<Started> {
    queueName = `rc-${randomUUID().slice(0, 8)}`;
    client = new Redis(redis.secretUrl, { maxRetriesPerRequest: null });
    closers.push(async () => client.quit());
    const fleet = await Fleet.connect({
      url: redis.secretUrl,
      identity: SUPERVISOR.identity,
      admitted: admitted(),
      queue: queueName,
    });
    closers.push(() => fleet.close());
    const started: Omit<Started, 'child' | 'jobId' | 'up' | 'down'> = {
      records: [],
      frames: [],
      violations: [],
    };
    const child = fleet.start(testPayload(), {
      fleet,
      node: { runId: 'run_rc', nodeId: 'n1', path: '0.1' },
      attempt: 1,
      timing,
      record: (kind, fields) => started.records.push({ kind, fields }),
    });
    child.attach({
      onFrame: (frame) => started.frames.push(frame),
      onViolation: (violation) => started.violations.push(violation),
    });
    const payload = testPayload({
      intelligence: {
        endpoints: [{ url: 'https://llm.example/v1', api_key: MODEL_KEY }],
        model: 'm',
      },
    });
    expect(child.send({ type: 'spawn', protocol: PROTOCOL_VERSION, payload })).toBe(true);
    const queued = started.records.find((r) => r.kind === 'fleet.queued');
    const jobId = String(queued?.fields.job);
    const streams = `${STREAM_PREFIX}:${jobId}`;
    return { ...started, child, jobId, up: `${streams}:up`, down: `${streams}:down` };
  }

  function queue(): Queue {
    const created = new Queue(queueName, { connection: client.duplicate() });
    closers.push(() => created.close().then(() => created.disconnect()));
    return created;
  }

  it('queues the spawn as a signed job, redacted, with its streams and keyed endpoints', async () => {
    const { jobId, up, down } = await start();
    const queued = queue();
    await waitUntil(async () => (await queued.getJob(jobId)) !== undefined, 'the job is queued');
    const job = await queued.getJob(jobId);
    const opened = openJob(supervisor, jobId, job?.data);
    if (!opened.ok) throw new Error(opened.reason);
    expect(opened.record).toMatchObject({ run_id: 'run_rc', node_id: 'n1', path: '0.1', up, down });
    expect(opened.record.keyed).toEqual([0]);
    expect(JSON.stringify(job?.data)).not.toContain(MODEL_KEY);
  });

  it('turns forged, replayed and moved entries into bad_signature violations while genuine ones flow', async () => {
    const { child, up, down, frames, violations, records } = await start();
    const genuine = (seq: number, record: UpRecord): string[] =>
      fieldsOf(seal(W1, up, seq, record));
    const hello = genuine(0, { k: 'hello', worker: 'w-test', host: 'h-test' });
    const pong = genuine(1, { k: 'frame', line: '{"type":"pong","seq":42}' });
    const stranger = FleetIdentity.generate().identity;
    const tampered = seal(W1, up, 1, { k: 'frame', line: '{"type":"pong","seq":42}' });
    tampered.m = tampered.m.replace('42', '43');
    expect(tampered.m).toContain('43');
    await client
      .multi()
      .xadd(up, '*', ...genuine(0, { k: 'frame', line: '{"type":"result"}' }))
      .xadd(up, '*', ...fieldsOf(seal(stranger, up, 0, { k: 'hello', worker: 'x', host: 'x' })))
      .xadd(up, '*', ...hello)
      .xadd(up, '*', ...fieldsOf(seal(W2, up, 1, { k: 'exit', code: 0, signal: null })))
      .xadd(up, '*', ...fieldsOf(seal(W2, up, 0, { k: 'hello', worker: 'w2', host: 'h2' })))
      .xadd(up, '*', ...fieldsOf(tampered))
      .xadd(up, '*', ...hello)
      .xadd(up, '*', ...fieldsOf(seal(W1, down, 1, { k: 'stderr', line: 'moved' })))
      .xadd(up, '*', ...pong)
      .xadd(up, '*', ...genuine(2, { k: 'stderr', line: 'child log' }))
      .xadd(up, '*', ...genuine(3, { k: 'exit', code: 7, signal: null }))
      .exec();
    const exit = await child.exited;
    expect(exit).toEqual({ code: 7, signal: null });
    expect(frames).toEqual([{ type: 'pong', seq: 42 }]);
    const notW1 = 'not the key of worker w1, to which the node is bound';
    expect(violations.map((v) => [v.line, v.code, v.reason])).toEqual([
      [1, 'bad_signature', 'refused a `frame` record before any worker claimed the node'],
      [
        2,
        'bad_signature',
        `refused an entry signed by key ${stranger.publicKey.id}, which no \`[[queue.admit]]\` entry of the supervisor admits`,
      ],
      [3, 'bad_signature', `refused an entry signed by key ${W2.publicKey.id}, ${notW1}`],
      [4, 'bad_signature', `refused an entry signed by key ${W2.publicKey.id}, ${notW1}`],
      [5, 'bad_signature', 'refused an entry whose signature does not verify'],
      [6, 'bad_signature', 'refused an entry out of sequence (expected 1, got 0)'],
      [7, 'bad_signature', 'refused an entry whose signature does not verify'],
    ]);
    expect(child.stderrTail()).toEqual(['child log']);
    expect(records.find((r) => r.kind === 'fleet.assigned')?.fields).toEqual({
      job: expect.any(String) as unknown,
      worker: 'w-test',
      host: 'h-test',
      attempt: 1,
      name: 'w1',
      keyId: W1.publicKey.id,
    });
    // The node's streams go with it.
    await waitUntil(async () => (await client.exists(up, down)) === 0, 'the streams are deleted');
  });

  it('sends control frames, the end of input and signals down, signed and in order', async () => {
    const { child, down } = await start();
    expect(child.send({ type: 'ping', seq: 1 })).toBe(true);
    child.closeInput();
    expect(child.send({ type: 'ping', seq: 2 })).toBe(false);
    child.signalGroup('SIGTERM');
    await waitUntil(async () => (await client.xlen(down)) >= 3, 'three entries are down');
    const entries = await client.xrange(down, '-', '+');
    const records = entries.map(([, fields], seq) => {
      const opened = open(supervisor, down, fields, seq, DownRecordSchema);
      if (!opened.ok) throw new Error(opened.reason);
      return opened.record;
    });
    expect(records).toEqual([
      { k: 'frame', line: '{"type":"ping","seq":1}' },
      { k: 'close' },
      { k: 'signal', signal: 'SIGTERM' },
    ]);
  });

  it('withdraws a job no worker took when SIGKILL goes unanswered', async () => {
    const { child, jobId } = await start({ ...PATIENT, killWaitMs: 100 });
    const waiting = queue();
    await waitUntil(async () => (await waiting.getJob(jobId)) !== undefined, 'the job is queued');
    child.signalGroup('SIGKILL');
    const exit = await child.exited;
    expect(exit.error?.message).toMatch(/^no fleet worker took the job/);
    expect(exit.lost).toBeUndefined();
    expect(await waiting.getJob(jobId)).toBeUndefined();
  });

  it('withdraws the job when SIGKILL comes before it has even landed in the queue', async () => {
    const { child, jobId } = await start({ ...PATIENT, killWaitMs: 0 });
    child.signalGroup('SIGKILL');
    const exit = await child.exited;
    expect(exit.error?.message).toMatch(/^no fleet worker took the job/);
    expect(await queue().getJob(jobId)).toBeUndefined();
  });

  it('calls the worker lost when BullMQ fails its job', async () => {
    const { child, jobId, records } = await start();
    // The fleet's queue events must be listening before the job fails, or the failure is missed.
    const name = `bull:${Buffer.from(queueName).toString('base64')}:qe`;
    await waitUntil(
      async () =>
        String(await client.call('CLIENT', 'LIST'))
          .split('\n')
          .some((line) => line.includes(`name=${name} `) && line.includes('cmd=xread')),
      "the fleet's queue events listen",
    );
    const failing = new Worker(queueName, () => Promise.reject(new Error('worker blew up')), {
      connection: client.duplicate(),
    });
    closers.push(() => failing.close().then(() => failing.disconnect()));
    const exit = await child.exited;
    expect(exit.lost).toBe('worker blew up');
    expect(exit.error?.message).toBe('worker lost: worker blew up');
    expect(records.find((r) => r.kind === 'fleet.lost')?.fields).toEqual({
      job: jobId,
      reason: 'worker blew up',
    });
  });
});
