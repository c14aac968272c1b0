import { expect, it } from 'vitest';
import { tempDb } from '../helpers/arbor-process.js';
import { fakeLlm } from '../helpers/fake-llm.js';
import { fleetConfig, fleetEnv, jobsOf, MODEL_KEY, startWorker } from '../helpers/fleet.js';
import { describeWithRedis, startRedis } from '../helpers/redis.js';
import { runArbor } from '../helpers/run-arbor.js';

describeWithRedis('labels', () => {
  it('routes a job that needs a label to a worker that has it, and only there', async () => {
    const redis = await startRedis();
    const plain = await startWorker(redis);
    const gpu = await startWorker(redis, { args: ['--labels', 'gpu,rust'] });
    expect(gpu.stderr).toContain('taking jobs from arbor, arbor.gpu, arbor.rust, arbor.gpu+rust');
    const config = await fleetConfig('labels = ["gpu"]\n');
    const llm = await fakeLlm({ scripts: [{ steps: [{ text: 'ran where the gpu is' }] }] });
    for (let i = 0; i < 3; i++) {
      const run = await runArbor(
        [
          'run',
          '--provider',
          'queue',
          '--config',
          config,
          '--intel',
          llm.url,
          '--model',
          'm',
          'Go.',
        ],
        { env: { ARBOR_DB: tempDb(), ARBOR_API_KEY: MODEL_KEY, ...fleetEnv(redis) } },
      );
      expect(run.code, run.stderr.slice(-2000)).toBe(0);
      expect(run.stdout).toContain('ran where the gpu is');
    }
    expect(jobsOf(gpu).took).toBe(3);
    expect(jobsOf(plain).took).toBe(0);
  });
});
