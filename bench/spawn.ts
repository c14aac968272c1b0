import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { childCommand, ChildPool, DEFAULT_TIMING, ProcessRun } from '../src/supervisor/index.js';
import { SpawnPayloadSchema, type SpawnPayload } from '../src/protocol/index.js';
import { startFakeLlm, type FakeLlm } from '../src/testing/index.js';
import { median, percentile, type BenchResult } from './stats.js';

/**
 * Spawn → `ready` latency of a real child process, started cold and taken from a pool of idle
 * children; spawn → the child's first model call (at a fake LLM answering at once), which adds
 * the child's first turn; and the resident memory of an idle child.
 */
const RUNS = 30;
const POOL = 4;
const IDLE = 10;

function benchPayload(url: string): SpawnPayload {
  return SpawnPayloadSchema.parse({
    instruction: 'Benchmark: say nothing.',
    intelligence: { endpoints: [{ url }], model: 'bench' },
    telemetry: { run_id: 'bench', node_id: 'n0', node_path: '0' },
  });
}
/** For spawns stopped at `ready`: an endpoint nothing listens on. */
const READY_PAYLOAD = benchPayload('http://127.0.0.1:9/v1');
const env = { PATH: process.env.PATH ?? '' };
const handlers = {
  onToolRequest: () => Promise.resolve({ result: null, is_error: true }),
  onBudgetRequest: () => Promise.resolve({ ok: true }),
};

/**
 * Time from the start of a spawn until `ready` (no `llm`: the child is stopped there) or until
 * the child's first request reaches `llm`.
 */
async function timeSpawn(pool?: ChildPool, llm?: FakeLlm): Promise<number> {
  const payload = llm === undefined ? READY_PAYLOAD : benchPayload(llm.url);
  const requests = llm?.requests.length ?? 0;
  const started = process.hrtime.bigint();
  const taken = pool?.take();
  if (pool !== undefined && taken === undefined) throw new Error('the pool had no idle child');
  const run = new ProcessRun(payload, {
    command: childCommand({}),
    ...(taken === undefined ? {} : { child: taken }),
    env,
    timing: DEFAULT_TIMING,
    handlers,
  });
  await (llm === undefined ? run.ready() : llm.waitForRequests(requests + 1));
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  await run.stop('benchmark done', { force: true });
  await run.result;
  return ms;
}

/** How long a bare `node` takes to start and exit: the floor under any Node child. */
function bareNode(): Promise<number> {
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    child.on('error', reject);
    child.on('exit', () => {
      resolve(Number(process.hrtime.bigint() - started) / 1e6);
    });
  });
}

function rssKiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 'NaN');
}

export async function benchSpawn(): Promise<BenchResult> {
  const bare: number[] = [];
  for (let i = 0; i < RUNS; i++) bare.push(await bareNode());
  const llm = await startFakeLlm({ playbook: { scripts: [{ steps: [{ text: 'Nothing.' }] }] } });
  const cold: number[] = [];
  const coldCall: number[] = [];
  const pooled: number[] = [];
  const pooledCall: number[] = [];
  const pool = new ChildPool({ command: childCommand({}), env, size: POOL });
  try {
    for (let i = 0; i < RUNS; i++) cold.push(await timeSpawn());
    for (let i = 0; i < RUNS; i++) coldCall.push(await timeSpawn(undefined, llm));
    for (let i = 0; i < RUNS; i++) {
      await pool.whenFull();
      pooled.push(await timeSpawn(pool));
    }
    for (let i = 0; i < RUNS; i++) {
      await pool.whenFull();
      pooledCall.push(await timeSpawn(pool, llm));
    }
  } finally {
    pool.close();
    await llm.close();
  }

  const idle = new ChildPool({ command: childCommand({}), env, size: IDLE });
  await idle.whenFull();
  const children = Array.from({ length: IDLE }, () => idle.take());
  const rss = children.map((child) => (child?.pid === undefined ? Number.NaN : rssKiB(child.pid)));
  for (const child of children) child?.signalGroup('SIGKILL');
  idle.close();

  return {
    name: 'spawn',
    metrics: {
      runs: RUNS,
      'bare `node -e 0` start→exit p50 ms': Number(median(bare).toFixed(1)),
      'cold spawn→ready p50 ms': Number(median(cold).toFixed(1)),
      'cold spawn→ready p95 ms': Number(percentile(cold, 95).toFixed(1)),
      'pooled spawn→ready p50 ms': Number(median(pooled).toFixed(2)),
      'pooled spawn→ready p95 ms': Number(percentile(pooled, 95).toFixed(2)),
      'cold spawn→first model call p50 ms': Number(median(coldCall).toFixed(1)),
      'pooled spawn→first model call p50 ms': Number(median(pooledCall).toFixed(1)),
      'pooled spawn→first model call p95 ms': Number(percentile(pooledCall, 95).toFixed(1)),
      'idle child RSS MiB (mean of 10)': Number(
        (rss.reduce((a, b) => a + b, 0) / rss.length / 1024).toFixed(1),
      ),
    },
  };
}
