import { expect, it } from 'vitest';
import { steps } from '../helpers/fake-llm.js';
import { admitConfig, fleetEnv, jobsOf, startWorker } from '../helpers/fleet.js';
import { describeWithRedis, startRedis } from '../helpers/redis.js';
import { rpc, rpcRequest, serveInProcess, userMessage, type RpcAnswer } from '../helpers/serve.js';

const OPS = 'ops-token-0123456789ab';

describeWithRedis('arbor serve on a fleet', () => {
  it("runs each task's tree on the workers", async () => {
    const redis = await startRedis();
    const worker = await startWorker(redis);
    const { server } = await serveInProcess(steps({ text: 'answered on a worker' }), {
      env: { OPS_TOKEN: OPS, ...fleetEnv(redis) },
      serve: { principal: [{ name: 'ops', role: 'operator', token: 'env:OPS_TOKEN' }] },
      flags: { provider: 'queue', config: admitConfig() },
    });
    for (const text of ['First task.', 'Second task.']) {
      const response = await server.fetch(
        rpcRequest(server.url, rpc('SendMessage', { message: userMessage(text) }), OPS),
      );
      const answer = (await response.json()) as RpcAnswer;
      expect(answer.result?.task?.status.state).toBe('TASK_STATE_COMPLETED');
      expect(JSON.stringify(answer.result?.task?.artifacts)).toContain('answered on a worker');
    }
    expect(jobsOf(worker).took).toBe(2);
  });
});
