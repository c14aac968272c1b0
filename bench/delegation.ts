import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStore } from '../src/store/index.js';
import { ChildPool, resolveChildCommand } from '../src/supervisor/index.js';
import { startFakeLlm, type FakeLlm } from '../src/testing/index.js';
import { timeArborDirectCalls, timeArborRun, type ArborRun } from './delegation-arbor.js';
import { checkRequests } from './delegation-check.js';
import {
  arePeersInstalled,
  PEER_FRAMEWORKS,
  PEERS_INSTALL,
  runPeer,
  type PeerFramework,
} from './delegation-peers.js';
import { delegationPhases } from './delegation-phases.js';
import { delegationPlaybook, type Shape } from './delegation-playbook.js';
import { delegationMetrics, type Series } from './delegation-report.js';
import type { BenchResult } from './stats.js';

/**
 * Orchestration overhead per delegation, arbor against its peers, in one run on one fake LLM
 * (in this process, answering at once). Each framework runs a root that delegates N sub-tasks
 * one after another, each sub-agent making one model call, and the same root with a no-op tool
 * in place of the sub-agent; and it makes single model calls directly. Overhead per delegation,
 * per pair of adjacent runs: (delegating − no-op) / N − one direct call. See
 * `docs/performance.md`.
 */
export const N = 20;
/** Warm-up pairs and timed pairs; a process-provider run takes seconds, and varies less. */
export const IN_PROCESS: Plan = { warmup: 3, reps: 20 };
export const PROCESS: Plan = { warmup: 1, reps: 8 };
export const DIRECT_CALLS = 100;
/** Idle children for the pooled variant, as in `bench/spawn.ts`. */
const POOL_SIZE = 4;

export interface Plan {
  warmup: number;
  reps: number;
}

export async function benchDelegation(): Promise<BenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'arbor-bench-delegation-'));
  const noopDirs = Array.from({ length: N }, (_, k) => join(dir, `d${k}`));
  for (const noop of noopDirs) mkdirSync(noop);
  const llm = await startFakeLlm({ playbook: delegationPlaybook(N, noopDirs) });
  const store = new SqliteStore(join(dir, 'bench.db'));
  try {
    const base = { store, url: llm.url, dir, n: N };
    const direct = await timeArborDirectCalls(llm.url, DIRECT_CALLS, IN_PROCESS.warmup * 10);
    const processRun = { ...base, framework: 'arbor-process' } as const;
    const series: Series[] = [
      await measureArbor(llm, 'arbor spawn', direct, { ...base, framework: 'arbor-spawn' }),
      await measureArbor(llm, 'arbor process, cold', direct, processRun, PROCESS),
      await measurePooled(llm, direct, processRun),
      await measurePooled(llm, direct, processRun, 'demand'),
    ];
    let peers: string;
    if (arePeersInstalled()) {
      for (const framework of PEER_FRAMEWORKS) series.push(await measurePeer(llm, framework));
      peers = 'measured';
    } else {
      peers = `skipped: bench/peers/node_modules is missing; install with \`${PEERS_INSTALL}\``;
      console.error(`delegation: peer frameworks ${peers}`);
    }
    return {
      name: 'delegation',
      metrics: {
        'delegations per run (N)': N,
        'timed pairs (in-process and peers / process provider)': `${IN_PROCESS.reps} / ${PROCESS.reps}`,
        'direct calls per framework': DIRECT_CALLS,
        peers,
        ...delegationMetrics(series, N),
      },
    };
  } finally {
    store.close();
    await llm.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Warm-up, then `reps` pairs of a delegating and a no-op run, alternating which goes first. */
export async function measureArbor(
  llm: FakeLlm,
  label: string,
  direct: number[],
  run: Omit<ArborRun, 'shape'>,
  plan: Plan = IN_PROCESS,
  beforeEach: () => Promise<void> = () => Promise.resolve(),
): Promise<Series> {
  const firstRequest = llm.requests.length;
  const delegating: string[] = [];
  const time = async (shape: Shape): Promise<number> => {
    await beforeEach();
    const { ms, runId } = await timeArborRun({ ...run, shape });
    if (shape === 'delegate') delegating.push(runId);
    return ms;
  };
  for (let i = 0; i < plan.warmup; i++) {
    await time('delegate');
    await time('noop');
  }
  delegating.length = 0;
  const series: Series = { label, isArbor: true, delegate: [], noop: [], direct };
  for (let i = 0; i < plan.reps; i++) {
    const order = i % 2 === 0 ? (['delegate', 'noop'] as const) : (['noop', 'delegate'] as const);
    for (const shape of order) series[shape].push(await time(shape));
  }
  checkRequests(llm.requests.slice(firstRequest), run.framework, plan.warmup + plan.reps, N);
  series.phases = delegationPhases(run.store, delegating);
  return series;
}

/**
 * The process provider with a pool of idle children.
 * - `full`: a pool of `POOL_SIZE`, full before every run. Children taken are replaced one at a
 *   time, from 20 ms after the take, while the run goes on; a run that takes children faster than
 *   they are replaced gets cold ones once the pool is empty.
 * - `demand`: what `arbor run --pool 4` gets: a pool that starts empty, follows demand up to
 *   `POOL_SIZE`, and is not waited for between runs (the runs come one after another, as a
 *   server's would).
 */
export async function measurePooled(
  llm: FakeLlm,
  direct: number[],
  run: Omit<ArborRun, 'shape'>,
  kind: 'full' | 'demand' = 'full',
): Promise<Series> {
  // The command arbor itself starts children with: from the start-up snapshot.
  const { command } = await resolveChildCommand(process.env);
  const pool = new ChildPool({
    command,
    env: { PATH: process.env.PATH ?? '' },
    size: kind === 'full' ? POOL_SIZE : 0,
    max: POOL_SIZE,
  });
  try {
    return await measureArbor(
      llm,
      kind === 'full'
        ? `arbor process, pool of ${POOL_SIZE}`
        : `arbor process, --pool ${POOL_SIZE}`,
      direct,
      { ...run, pool },
      PROCESS,
      kind === 'full' ? () => pool.whenFull() : undefined,
    );
  } finally {
    pool.close();
  }
}

async function measurePeer(llm: FakeLlm, framework: PeerFramework): Promise<Series> {
  const firstRequest = llm.requests.length;
  const times = await runPeer(framework, {
    url: llm.url,
    n: N,
    reps: IN_PROCESS.reps,
    warmup: IN_PROCESS.warmup,
    calls: DIRECT_CALLS,
  });
  checkRequests(
    llm.requests.slice(firstRequest),
    framework,
    IN_PROCESS.warmup + IN_PROCESS.reps,
    N,
  );
  const versions = Object.entries(times.versions)
    .map(([name, version]) => `${name} ${version}`)
    .join(', ');
  const { delegate, noop, direct } = times;
  return { label: framework, isArbor: false, versions, delegate, noop, direct };
}
