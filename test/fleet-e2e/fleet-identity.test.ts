import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { expect, it } from 'vitest';
import { entryFields, seal, signJob } from '../../src/fleet/envelope.js';
import { redactPayload } from '../../src/protocol/index.js';
import { fakeLlm } from '../helpers/fake-llm.js';
import {
  admitTables,
  fleetConfig,
  jobsOf,
  runOnFleet,
  startWorker,
  WORKERS,
  type TestIdentity,
} from '../helpers/fleet.js';
import { testPayload } from '../helpers/payloads.js';
import { runRecord } from '../helpers/plan-run.js';
import { describeWithRedis, startRedis } from '../helpers/redis.js';

interface Report {
  run_id: string;
  status: string;
  result: unknown;
}

/** One of the admitted test workers that is not `worker`: a stolen key, as good as any. */
function another(worker: TestIdentity): TestIdentity {
  const other = WORKERS.find((candidate) => candidate !== worker);
  if (other === undefined) throw new Error('two test workers');
  return other;
}

describeWithRedis('fleet identities: what a stolen worker key cannot do', () => {
  it("refuses a result forged by another admitted worker on a node it was not given: the run's answer is the honest one", async () => {
    const redis = await startRedis();
    const honest = await startWorker(redis);
    const llm = await fakeLlm({
      scripts: [{ steps: [{ text: 'honest answer', delay_ms: 3000 }] }],
    });
    const { arbor, db } = runOnFleet(redis, llm.url, ['--provider', 'queue'], 'Answer.');
    const assigned = await arbor.waitForEvent('fleet.assigned');
    expect(assigned.name).toBe(honest.identity.name);
    const up = `arbor:fleet:${String(assigned.job)}:up`;
    // The attacker holds another admitted worker's key and can write to Redis: it reads where the
    // honest worker's sequence is and appends the answer it wants, signed, at the next place.
    const attacker = another(honest.identity);
    const client = new Redis(redis.secretUrl);
    try {
      const entries = await client.xrange(up, '-', '+');
      const last = entries.at(-1)?.[1];
      const message = last?.[last.indexOf('m') + 1] ?? '{"s":-1}';
      const next = (JSON.parse(message) as { s: number }).s + 1;
      const forged = seal(attacker.identity, up, next, {
        k: 'frame',
        line: JSON.stringify({
          type: 'result',
          outcome: { status: 'completed', result: 'FORGED ANSWER' },
        }),
      });
      await client.xadd(up, '*', ...entryFields(forged));
    } finally {
      client.disconnect();
    }
    const exit = await arbor.exited;
    expect(exit.code, arbor.stderr.slice(-2000)).toBe(0);
    const report = JSON.parse(arbor.stdout) as Report;
    expect(report.result).toBe('honest answer');
    expect(arbor.stdout).not.toContain('FORGED');
    // Refused and counted, naming whose key it was and whose node it is.
    const violations = runRecord(db, report.run_id).events.filter(
      (event) => event.kind === 'protocol.violation',
    );
    expect(violations.map((event) => [event.data.code, event.data.reason])).toEqual([
      [
        'bad_signature',
        `refused an entry signed by key ${attacker.identity.publicKey.id}, not the key of worker ${honest.identity.name}, to which the node is bound`,
      ],
    ]);
  });

  it('refuses a job minted with a worker key, with every grant: no honest worker starts it', async () => {
    const redis = await startRedis();
    const honest = await startWorker(redis);
    const attacker = another(honest.identity);
    const jobId = `minted-${randomUUID().slice(0, 8)}`;
    const payload = testPayload({
      caveats: { fs_read: 'all', fs_write: 'all', exec: 'all', net: 'all' },
    });
    const job = signJob(attacker.identity, jobId, {
      v: 1,
      run_id: 'run_minted',
      node_id: 'n0',
      path: '0',
      attempt: 1,
      up: `arbor:fleet:${jobId}:up`,
      down: `arbor:fleet:${jobId}:down`,
      payload: redactPayload(payload),
      keyed: [],
      ping_ms: 1_000,
      expires_at: Date.now() + 60_000,
    });
    const queue = new Queue('arbor', { connection: new Redis(redis.secretUrl) });
    try {
      await queue.add('node', job, { jobId });
    } finally {
      await queue.close();
      await queue.disconnect();
    }
    await honest.waitForStderr(
      new RegExp(
        `refused job ${jobId}: a job signed by key ${attacker.identity.publicKey.id}, which is not the key of a supervisor this worker serves`,
      ),
    );
    honest.signal('SIGTERM');
    expect((await honest.exited).code).toBe(0);
    expect(honest.stderr).toContain('stopped: 0 taken, 0 finished, 1 refused');
    expect(jobsOf(honest).took).toBe(0);
  });

  it('revokes a worker without restarting the supervisor: its node is re-queued and finished by another', async () => {
    const redis = await startRedis();
    const config = await fleetConfig();
    const first = await startWorker(redis);
    const llm = await fakeLlm({ scripts: [{ steps: [{ text: 'slow answer', delay_ms: 4000 }] }] });
    const { arbor, db } = runOnFleet(
      redis,
      llm.url,
      ['--provider', 'queue', '--config', config],
      'Answer slowly.',
    );
    await arbor.waitForEvent('fleet.assigned');
    const second = await startWorker(redis);
    // The operator removes the first worker's entry; the supervisor keeps running.
    const remaining = WORKERS.filter((worker) => worker !== first.identity);
    await writeFile(config, `[queue]\nredis = "env:ARBOR_REDIS_URL"\n${admitTables(remaining)}`);
    const exit = await arbor.exited;
    expect(exit.code, arbor.stderr.slice(-2000)).toBe(0);
    const report = JSON.parse(arbor.stdout) as Report;
    expect(report.result).toBe('slow answer');
    const events = runRecord(db, report.run_id).events.filter((event) =>
      /^fleet\.(assigned|lost)$|^node\.requeue$/.test(event.kind),
    );
    const revoked = `worker ${first.identity.name} (key ${first.identity.identity.publicKey.id}) is no longer admitted`;
    expect(events.map((event) => [event.kind, event.data.name ?? event.data.reason])).toEqual([
      ['fleet.assigned', first.identity.name],
      ['fleet.lost', revoked],
      ['node.requeue', revoked],
      ['fleet.assigned', second.identity.name],
    ]);
    expect(jobsOf(second).took).toBe(1);
  }, 60_000);
});
