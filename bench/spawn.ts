import { spawn } from 'node:child_process';
import {
  childCommand,
  ChildPool,
  DEFAULT_TIMING,
  ensureChildSnapshot,
  ProcessRun,
  snapshotCommand,
  type ChildCommand,
} from '../src/supervisor/index.js';
import { meanMemory, processMemory } from './child-memory.js';
import { SpawnPayloadSchema, type SpawnPayload } from '../src/protocol/index.js';
import { startFakeLlm, type FakeLlm } from '../src/testing/index.js';
import { median, percentile, type BenchResult } from './stats.js';

/**
 * Spawn → `ready` latency of a real child process, started cold and taken from a pool of idle
 * children; spawn → the child's first model call (at a fake LLM answering at once), which adds
 * the child's first turn; and the memory of an idle child. Children start from the start-up
 * snapshot, as arbor starts them; the cold start and the memory are measured from the bundle too.
 * The bare-Node floor runs with the same environment as the children: an inherited
 * `NODE_EXTRA_CA_CERTS` alone (set on many machines) costs a Node process tens of milliseconds.
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
async function timeSpawn(command: ChildCommand, pool?: ChildPool, llm?: FakeLlm): Promise<number> {
  const payload = llm === undefined ? READY_PAYLOAD : benchPayload(llm.url);
  const requests = llm?.requests.length ?? 0;
  const started = process.hrtime.bigint();
  const taken = pool?.take();
  if (pool !== undefined && taken === undefined) throw new Error('the pool had no idle child');
  const run = new ProcessRun(payload, {
    command,
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
function bareNode(environment: NodeJS.ProcessEnv = env): Promise<number> {
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore', env: environment });
    child.on('error', reject);
    child.on('exit', () => {
      resolve(Number(process.hrtime.bigint() - started) / 1e6);
    });
  });
}

/** The memory of `IDLE` idle pooled children started with `command`, averaged. */
async function idleMemory(command: ChildCommand): Promise<ReturnType<typeof meanMemory>> {
  const idle = new ChildPool({ command, env, size: IDLE });
  await idle.whenFull();
  const children = Array.from({ length: IDLE }, () => idle.take());
  const memory = meanMemory(children.map((child) => processMemory(child?.pid ?? 0)));
  for (const child of children) child?.signalGroup('SIGKILL');
  idle.close();
  return memory;
}

/** The snapshot children start from; the benchmark measures nothing else as "arbor's child". */
async function snapshotChild(): Promise<ChildCommand> {
  const state = await ensureChildSnapshot();
  if (state.blob === undefined) throw new Error(`no child snapshot: ${String(state.reason)}`);
  return snapshotCommand(state.blob);
}

export async function benchSpawn(): Promise<BenchResult> {
  const snapshot = await snapshotChild();
  const bundle = childCommand({});
  const bare: number[] = [];
  const bareInherited: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    bare.push(await bareNode());
    bareInherited.push(await bareNode(process.env));
  }
  const llm = await startFakeLlm({ playbook: { scripts: [{ steps: [{ text: 'Nothing.' }] }] } });
  const cold: number[] = [];
  const coldBundle: number[] = [];
  const coldCall: number[] = [];
  const pooled: number[] = [];
  const pooledCall: number[] = [];
  const pool = new ChildPool({ command: snapshot, env, size: POOL });
  try {
    for (let i = 0; i < RUNS; i++) {
      cold.push(await timeSpawn(snapshot));
      coldBundle.push(await timeSpawn(bundle));
    }
    for (let i = 0; i < RUNS; i++) coldCall.push(await timeSpawn(snapshot, undefined, llm));
    for (let i = 0; i < RUNS; i++) {
      await pool.whenFull();
      pooled.push(await timeSpawn(snapshot, pool));
    }
    for (let i = 0; i < RUNS; i++) {
      await pool.whenFull();
      pooledCall.push(await timeSpawn(snapshot, pool, llm));
    }
  } finally {
    pool.close();
    await llm.close();
  }
  const memory = await idleMemory(snapshot);
  const bundleMemory = await idleMemory(bundle);

  const floor = median(bare);
  return {
    name: 'spawn',
    metrics: {
      runs: RUNS,
      'bare `node -e 0` start→exit p50 ms': Number(floor.toFixed(1)),
      'bare `node -e 0`, the shell’s whole environment, p50 ms': Number(
        median(bareInherited).toFixed(1),
      ),
      'cold spawn→ready p50 ms': Number(median(cold).toFixed(1)),
      'cold spawn→ready p95 ms': Number(percentile(cold, 95).toFixed(1)),
      'cold spawn→ready ÷ bare node': Number((median(cold) / floor).toFixed(2)),
      'cold spawn→ready, from the bundle, p50 ms': Number(median(coldBundle).toFixed(1)),
      'cold spawn→ready, from the bundle ÷ bare node': Number(
        (median(coldBundle) / floor).toFixed(2),
      ),
      'pooled spawn→ready p50 ms': Number(median(pooled).toFixed(2)),
      'pooled spawn→ready p95 ms': Number(percentile(pooled, 95).toFixed(2)),
      'cold spawn→first model call p50 ms': Number(median(coldCall).toFixed(1)),
      'pooled spawn→first model call p50 ms': Number(median(pooledCall).toFixed(1)),
      'pooled spawn→first model call p95 ms': Number(percentile(pooledCall, 95).toFixed(1)),
      'idle child RSS MiB (mean of 10)': memory.rss,
      'idle child PSS / private / shared MiB': `${String(memory.pss)} / ${String(memory.private)} / ${String(memory.shared)}`,
      'idle child from the bundle, RSS MiB': bundleMemory.rss,
      'idle child from the bundle, PSS / private / shared MiB': `${String(bundleMemory.pss)} / ${String(bundleMemory.private)} / ${String(bundleMemory.shared)}`,
    },
  };
}
