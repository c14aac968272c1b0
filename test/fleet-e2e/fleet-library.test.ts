import { dirname } from 'node:path';
import { expect, it } from 'vitest';
import { Arbor } from '../../src/index.js';
import { fakeLlm } from '../helpers/fake-llm.js';
import { fleetConfig, fleetEnv, jobsOf, MODEL_KEY, startWorker } from '../helpers/fleet.js';
import { describeWithRedis, startRedis } from '../helpers/redis.js';

describeWithRedis('the library on a fleet', () => {
  it('gives an Arbor a fleet from its config: a sub-agent asked for on `queue` runs on a worker', async () => {
    const redis = await startRedis();
    const worker = await startWorker(redis);
    const config = await fleetConfig('', 'FLEET_REDIS');
    const dir = dirname(config);
    const llm = await fakeLlm({
      scripts: [
        { match: { contains: 'Remote part' }, steps: [{ text: 'done on a worker' }] },
        {
          steps: [
            {
              tool_calls: [
                { name: 'subagent.run', args: { instruction: 'Remote part.', provider: 'queue' } },
              ],
            },
            { text: 'the root is done' },
          ],
        },
      ],
    });
    const arbor = await Arbor.open({
      intelligence: { endpoints: [llm.url], model: 'm' },
      store: ':memory:',
      config,
      cwd: dir,
      security: { sandbox: 'off' },
      env: {
        PATH: process.env.PATH ?? '',
        ARBOR_API_KEY: MODEL_KEY,
        ARBOR_FLEET_PRIVATE_KEY_FILE: fleetEnv(redis).ARBOR_FLEET_PRIVATE_KEY_FILE,
        FLEET_REDIS: redis.secretUrl,
      },
    });
    try {
      const run = arbor.run('Delegate the remote part.');
      const result = await run.result;
      expect(result).toMatchObject({ status: 'completed', text: 'the root is done' });
      expect(JSON.stringify(llm.requests.at(-1)?.body)).toContain('done on a worker');
      expect(jobsOf(worker).took).toBe(1);
    } finally {
      await arbor.close();
    }
  });
});
