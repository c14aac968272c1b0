import { createModelClient } from '../src/intel/index.js';
import type { IntelConfig } from '../src/protocol/index.js';
import type { SqliteStore } from '../src/store/index.js';
import {
  DEFAULT_TIMING,
  Supervisor,
  type ChildPool,
  type FleetPort,
} from '../src/supervisor/index.js';
import { DIRECT_SYSTEM, rootPhrase, subtask, type Shape } from './delegation-playbook.js';

/** One arbor run of the delegation benchmark, set up as `arbor run` would set it up. */
export interface ArborRun {
  store: SqliteStore;
  /** The fake LLM's base URL (`…/v1`). */
  url: string;
  /** The run's working directory: the root may read and write there, as the CLI's default. */
  dir: string;
  framework: 'arbor-spawn' | 'arbor-process';
  shape: Shape;
  n: number;
  /** Idle children; only nodes with the process provider (the root always) take from it. */
  pool?: ChildPool;
  /** The supervisor's environment (`ARBOR_CHILD_COMMAND` changes how children start). */
  env?: NodeJS.ProcessEnv;
  /** Workers on Redis: every process node (the root too) runs there instead. */
  fleet?: FleetPort;
}

function intelligence(url: string): IntelConfig {
  return {
    endpoints: [{ url, dialect: 'openai', headers: {} }],
    model: 'gpt-4o-mini',
    sampling: {},
    timeout_ms: 30_000,
    retries: 0,
    breaker: { threshold: 3, cooldown_ms: 5_000, cooldown_max_ms: 60_000 },
    prices: {},
  };
}

let runs = 0;

/**
 * Runs one root to its end through the real `Supervisor` and returns the wall time of `runRoot`
 * in milliseconds (the root's start, its model calls, every sub-agent from spawn to exit, every
 * record written to the SQLite store) and the run's id. Throws unless every node completed.
 */
export async function timeArborRun(run: ArborRun): Promise<{ ms: number; runId: string }> {
  runs += 1;
  const runId = `bench_delegation_${runs}`;
  const instruction = `${rootPhrase(run.shape, run.framework)}: coordinate the benchmark.`;
  run.store.createRun({
    id: runId,
    instruction,
    status: 'running',
    createdAt: Date.now(),
    meta: { command: 'bench' },
  });
  const supervisor = new Supervisor({
    runId,
    store: run.store,
    timing: DEFAULT_TIMING,
    env: run.env ?? process.env,
    cwd: run.dir,
    ...(run.pool === undefined ? {} : { pool: run.pool }),
    ...(run.fleet === undefined ? {} : { fleet: run.fleet, processOnFleet: true }),
    limits: { maxDepth: 1, maxBreadth: 8, maxTotal: run.n },
    // The default rate (8 spawns per 2 s) would refuse the ninth back-to-back delegation.
    rate: { count: run.n, perMs: 1_000 },
  });
  const started = process.hrtime.bigint();
  const result = await supervisor.runRoot({
    instruction,
    intelligence: intelligence(run.url),
    limits: { max_steps: run.n + 5, max_depth: 1 },
    // The CLI's default grant: files under the working directory, commands and network.
    caveats: {
      fs_read: [run.dir],
      fs_write: [run.dir],
      exec: 'all',
      net: 'all',
      max_calls: 'unlimited',
    },
  });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  run.store.finishRun(runId, result.end.outcome.status, Date.now());
  const nodes = supervisor.tree.nodes();
  const expected = run.shape === 'delegate' ? run.n + 1 : 1;
  const done = nodes.filter((node) => node.status === 'completed').length;
  if (result.end.outcome.result !== 'All done.' || done !== expected || nodes.length !== expected) {
    throw new Error(
      `${run.framework} ${run.shape}: expected ${expected} completed nodes and "All done.", got ${done} of ${nodes.length} and ${JSON.stringify(result.end.outcome)}`,
    );
  }
  return { ms, runId };
}

/**
 * Times `count` model calls made directly with arbor's model client in this process (where
 * in-process sub-agents make theirs), each a sub-agent's kind of request: a system prompt and
 * one user message, no tools.
 */
export async function timeArborDirectCalls(
  url: string,
  count: number,
  warmup: number,
): Promise<number[]> {
  const client = createModelClient(intelligence(url));
  const call = () =>
    client.generate({
      system: DIRECT_SYSTEM,
      messages: [{ role: 'user', text: subtask('direct') }],
    });
  for (let i = 0; i < warmup; i++) await call();
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = process.hrtime.bigint();
    await call();
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return times;
}
