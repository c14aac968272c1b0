import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  PlanSchema,
  RunLogWriter,
  runSchedule,
  validatePlan,
  type Plan,
} from '../src/plan/index.js';
import { median, type BenchResult } from './stats.js';

/**
 * Scheduling overhead of a plan run: DAGs of 1k, 10k and 100k no-op leaves, each depending on up
 * to three earlier leaves (a seeded random choice), most of them `parallel_ok`. Times
 * `validatePlan` (ids, deps, cycles, parents) and `runSchedule` with a dispatcher that finishes
 * every leaf at once, so what is measured is arbor's own bookkeeping; then the same with the
 * run-log kept on disk as `arbor plan run` keeps it (atomic rewrites, batched while one is under
 * way).
 */
const SIZES = [1_000, 10_000, 100_000];
const REPS: Record<number, number> = { 1_000: 9, 10_000: 5, 100_000: 3 };
const CONCURRENCY = 16;

function makePlan(n: number, seed: number): Plan {
  let state = seed;
  const random = (): number => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
  const subtask = Array.from({ length: n }, (_, i) => {
    const deps = new Set<string>();
    const count = i === 0 ? 0 : Math.floor(random() * 4);
    for (let k = 0; k < count; k++) deps.add(`t${Math.floor(random() * i)}`);
    return {
      id: `t${i}`,
      instruction: `no-op ${i}`,
      deps: [...deps],
      parallel_ok: random() < 0.9,
    };
  });
  return PlanSchema.parse({ subtask });
}

function ms(started: bigint): number {
  return Number(process.hrtime.bigint() - started) / 1e6;
}

export async function benchPlanSchedule(): Promise<BenchResult> {
  const metrics: Record<string, number | string> = { concurrency: CONCURRENCY };
  for (const n of SIZES) {
    const validate: number[] = [];
    const schedule: number[] = [];
    const withLog: number[] = [];
    for (let rep = 0; rep < (REPS[n] ?? 3); rep++) {
      const plan = makePlan(n, rep + 1);
      let started = process.hrtime.bigint();
      const findings = validatePlan(plan);
      validate.push(ms(started));
      if (findings.length > 0)
        throw new Error(`generated plan is invalid: ${findings[0]?.message}`);
      started = process.hrtime.bigint();
      const summary = await runSchedule(plan, {
        concurrency: CONCURRENCY,
        onFailure: 'stop',
        dispatch: () => Promise.resolve({ status: 'done' }),
      });
      schedule.push(ms(started));
      if (summary.done !== n) throw new Error(`expected ${n} done, got ${summary.done}`);
      withLog.push(await scheduleWithLog(makePlan(n, rep + 1)));
    }
    const label = n.toLocaleString('en');
    metrics[`${label} leaves: validate ms (median)`] = Number(median(validate).toFixed(1));
    metrics[`${label} leaves: schedule ms (median)`] = Number(median(schedule).toFixed(1));
    metrics[`${label} leaves: schedule + run-log ms (median)`] = Number(median(withLog).toFixed(1));
    metrics[`${label} leaves: schedule µs per leaf`] = Number(
      ((median(schedule) * 1000) / n).toFixed(2),
    );
  }
  return { name: 'plan-schedule', metrics };
}

async function scheduleWithLog(plan: Plan): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'arbor-bench-plan-'));
  try {
    const log = new RunLogWriter(join(dir, 'plan.run.toml'), plan);
    const started = process.hrtime.bigint();
    await runSchedule(plan, {
      concurrency: CONCURRENCY,
      onFailure: 'stop',
      dispatch: () => Promise.resolve({ status: 'done' }),
      onTransition: () => {
        void log.update();
      },
    });
    await log.flush();
    return ms(started);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
