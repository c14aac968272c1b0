import { expect, it } from 'vitest';
import { fakeLlm } from '../helpers/fake-llm.js';
import { fleetConfig, runOnFleet, startWorker, waitForLog } from '../helpers/fleet.js';
import { runRecord } from '../helpers/plan-run.js';
import { describeWithRedis, startRedis } from '../helpers/redis.js';

describeWithRedis('attempts', () => {
  it('ends a node crashed once every attempt has lost its worker, each one recorded', async () => {
    const redis = await startRedis();
    const config = await fleetConfig('attempts = 2\n');
    const llm = await fakeLlm({ scripts: [{ steps: [{ text: 'never seen', delay_ms: 30_000 }] }] });
    const { arbor, db } = runOnFleet(
      redis,
      llm.url,
      ['--provider', 'queue', '--config', config],
      'Work slowly.',
    );
    for (let attempt = 1; attempt <= 2; attempt++) {
      const worker = await startWorker(redis);
      await waitForLog(worker, (jobs) => jobs.took === 1);
      await arbor.waitForEvent('fleet.assigned', (line) => line.attempt === attempt);
      // Killed while its model call is under way.
      await arbor.waitUntil(
        () => arbor.events.filter((line) => line.event === 'loop.step').length >= attempt,
        `the model call of attempt ${attempt}`,
      );
      worker.signal('SIGKILL');
    }
    const exit = await arbor.exited;
    expect(exit.code).not.toBe(0);
    const report = JSON.parse(arbor.stdout) as { run_id: string; status: string; reason?: string };
    expect(report.status).toBe('crashed');
    expect(report.reason).toMatch(/^worker lost: /);
    const { events } = runRecord(db, report.run_id);
    const kinds = events.filter((event) => /^fleet\.|^node\.requeue$/.test(event.kind));
    expect(kinds.map((event) => event.kind)).toEqual([
      'fleet.queued',
      'fleet.assigned',
      'fleet.lost',
      'node.requeue',
      'fleet.queued',
      'fleet.assigned',
      'fleet.lost',
    ]);
  }, 60_000);
});
