import { expect, it } from 'vitest';
import { fakeLlm } from '../helpers/fake-llm.js';
import {
  fleetConfig,
  fleetEnv,
  jobsOf,
  MODEL_KEY,
  runOnFleet,
  startWorker,
} from '../helpers/fleet.js';
import { runRecord } from '../helpers/plan-run.js';
import { describeWithRedis, startRedis } from '../helpers/redis.js';
import { runArbor } from '../helpers/run-arbor.js';

describeWithRedis('arbor replay with nodes on fleet workers', () => {
  it('replays a queue node from the supervisor store: the worker takes it again and calls no model', async () => {
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
    const config = await fleetConfig();
    const { arbor, db } = runOnFleet(redis, llm.url, ['--config', config], 'Coordinate the check.');
    const exit = await arbor.exited;
    expect(exit.code, arbor.stderr.slice(-3000)).toBe(0);
    const runId = (JSON.parse(arbor.stdout) as { run_id: string }).run_id;
    const calls = llm.requests.length;
    expect(jobsOf(worker).took).toBe(1);

    const replay = await runArbor(['replay', runId, '--config', config, '--events', 'none'], {
      env: { ARBOR_DB: db, ARBOR_API_KEY: MODEL_KEY, ...fleetEnv(redis) },
    });
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.stdout).toBe('root done\n');
    expect(replay.stderr).toContain('no divergence');
    expect(llm.requests.length).toBe(calls);
    // The middle node ran on the worker again, answered from the records it was sent.
    expect(jobsOf(worker).took).toBe(2);
    const replayId = / as (run_[a-z0-9]+)/.exec(replay.stderr)?.[1] ?? '';
    const { events } = runRecord(db, replayId);
    const spawned = events.filter((event) => event.kind === 'node.spawned');
    expect(spawned.map((event) => event.data.provider)).toEqual(['process', 'queue', 'process']);
    expect(
      events.filter((e) => e.kind === 'model.call').every((e) => e.data.replayed === true),
    ).toBe(true);
  });
});
