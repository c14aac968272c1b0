import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Fleet } from '../src/fleet/fleet.js';
import { AdmittedWorkers } from '../src/fleet/admitted-workers.js';
import { SqliteStore } from '../src/store/index.js';
import { startFakeLlm } from '../src/testing/index.js';
import { timeArborDirectCalls } from './delegation-arbor.js';
import { DIRECT_CALLS, IN_PROCESS, measureArbor, measurePooled, N, PROCESS } from './delegation.js';
import { delegationPlaybook } from './delegation-playbook.js';
import { delegationMetrics, overheads } from './delegation-report.js';
import {
  BENCH_ADMIT_CONFIG,
  BENCH_SUPERVISOR,
  BENCH_WORKERS,
  cpuSeconds,
  hasRedisServer,
  startRedis,
  startWorker,
  timePlanRun,
  type BenchWorker,
} from './fleet-parts.js';
import { median, type BenchResult } from './stats.js';

/** Idle children on the worker, as many as the local pool holds. */
const POOL_SIZE = 4;
/** No-op leaves per throughput run, and the plan's concurrency. */
const LEAVES = 100;
const CONCURRENCY = 8;
const WORKER_COUNTS = [1, 2, 4];

/**
 * The fleet (`--provider queue`): what a remote delegation adds over a local pooled one, and
 * how many no-op plan leaves a second go through 1, 2 and 4 workers against local processes. On
 * one machine the workers share its cores with the supervisor and Redis, so the throughput rows
 * show the cost of the relay, not the gain of more machines: the per-leaf CPU figures model that.
 * See `docs/performance.md` and `docs/scale-out.md`.
 */
export async function benchFleet(): Promise<BenchResult> {
  if (!hasRedisServer())
    return {
      name: 'fleet',
      metrics: { skipped: 'redis-server is missing (apt-get install redis-server)' },
    };
  const redis = await startRedis();
  try {
    const overhead = await measureOverhead(redis.url);
    const throughput = await measureThroughput(redis.url, redis.pid);
    return {
      name: 'fleet',
      metrics: { cores: cpus().length, ...overhead, ...throughput },
    };
  } finally {
    redis.stop();
  }
}

/** The delegation benchmark's runs, pooled locally and on one worker with a pool of its own. */
async function measureOverhead(url: string): Promise<Record<string, number | string>> {
  const dir = mkdtempSync(join(tmpdir(), 'arbor-bench-fleet-'));
  const noopDirs = Array.from({ length: N }, (_, k) => join(dir, `d${k}`));
  for (const noop of noopDirs) mkdirSync(noop);
  const llm = await startFakeLlm({ playbook: delegationPlaybook(N, noopDirs) });
  const store = new SqliteStore(join(dir, 'bench.db'));
  const worker = await startWorker(url, { concurrency: 8, pool: POOL_SIZE });
  const fleet = await Fleet.connect({
    url,
    identity: BENCH_SUPERVISOR.identity,
    admitted: new AdmittedWorkers(
      BENCH_WORKERS.map(({ identity }, i) => ({ name: `w${i + 1}`, key: identity.publicKey })),
    ),
  });
  try {
    const base = { store, url: llm.url, dir, n: N, framework: 'arbor-process' } as const;
    const direct = await timeArborDirectCalls(llm.url, DIRECT_CALLS, IN_PROCESS.warmup * 10);
    const local = await measurePooled(llm, direct, base);
    // The worker's pool refills itself after each child it hands out, as the local one does.
    const remote = await measureArbor(
      llm,
      `fleet, 1 worker, pool of ${POOL_SIZE}`,
      direct,
      { ...base, fleet },
      PROCESS,
    );
    const added = median(overheads(remote, N)) - median(overheads(local, N));
    return {
      'delegations per run (N)': N,
      ...delegationMetrics([local, remote], N),
      'added by the fleet per delegation p50 ms (target < 10)': Number(added.toFixed(1)),
    };
  } finally {
    await fleet.close();
    await worker.stop();
    store.close();
    await llm.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A plan of `LEAVES` independent leaves, each one model call answered at once. */
function writePlan(dir: string): void {
  const leaves = Array.from(
    { length: LEAVES },
    (_, i) =>
      `[[subtask]]\nid = "l${i}"\ninstruction = "No-op leaf ${i}: answer."\nparallel_ok = true\n`,
  );
  writeFileSync(join(dir, 'plan.toml'), `goal = "No-op leaves"\n\n${leaves.join('\n')}`);
  writeFileSync(
    join(dir, 'playbook.json'),
    JSON.stringify({ scripts: [{ match: { contains: 'No-op leaf' }, steps: [{ text: 'ok' }] }] }),
  );
}

async function measureThroughput(
  url: string,
  redisPid: number,
): Promise<Record<string, number | string>> {
  const metrics: Record<string, number | string> = {
    'leaves per plan run': LEAVES,
    'plan concurrency': CONCURRENCY,
  };
  const run = async (provider: string, workers: readonly BenchWorker[]) => {
    const dir = mkdtempSync(join(tmpdir(), 'arbor-bench-fleet-plan-'));
    writePlan(dir);
    const cpuBefore = workers.map((worker) => cpuSeconds(worker.pid));
    const redisBefore = cpuSeconds(redisPid);
    try {
      const { seconds, cpu } = await timePlanRun(
        dir,
        [
          'plan.toml',
          '--provider',
          provider,
          '--mock-llm',
          'playbook.json',
          '--concurrency',
          String(CONCURRENCY),
          '--events',
          'none',
          '--redis',
          url,
          '--db',
          join(dir, 'arbor.db'),
          '--config',
          BENCH_ADMIT_CONFIG,
        ],
        { ARBOR_FLEET_PRIVATE_KEY_FILE: BENCH_SUPERVISOR.file },
      );
      const workerCpu = workers.reduce(
        (sum, worker, i) => sum + cpuSeconds(worker.pid) - (cpuBefore[i] ?? 0),
        0,
      );
      return { seconds, cpu, workerCpu, redisCpu: cpuSeconds(redisPid) - redisBefore };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  const local = await run('process', []);
  metrics['local process provider: leaves/s'] = round(LEAVES / local.seconds);
  metrics['local process provider: CPU s per leaf (supervisor with its children)'] = round(
    local.cpu / LEAVES,
    3,
  );
  for (const count of WORKER_COUNTS) {
    const workers = await Promise.all(
      Array.from({ length: count }, () => startWorker(url, { concurrency: CONCURRENCY, pool: 2 })),
    );
    try {
      const fleet = await run('queue', workers);
      const key = (what: string): string =>
        `fleet, ${count} worker${count === 1 ? '' : 's'}: ${what}`;
      metrics[key('leaves/s')] = round(LEAVES / fleet.seconds);
      metrics[key('CPU s per leaf: supervisor / workers with children / redis')] = [
        fleet.cpu / LEAVES,
        fleet.workerCpu / LEAVES,
        fleet.redisCpu / LEAVES,
      ]
        .map((value) => value.toFixed(4))
        .join(' / ');
    } finally {
      await Promise.all(workers.map((worker) => worker.stop()));
    }
  }
  return metrics;
}

function round(value: number, digits = 1): number {
  return Number(value.toFixed(digits));
}
