import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { SpawnPayloadSchema } from '../src/protocol/index.js';
import { childCommand, DEFAULT_TIMING, ProcessRun } from '../src/supervisor/index.js';
import { startFakeLlm } from '../src/testing/index.js';
import { median, percentile, type BenchResult } from './stats.js';

/**
 * Deadline overshoot of the process provider: a child whose model runs `exec sleep 300` with a
 * deadline of `DEADLINE_MS`. Measured from the moment the deadline is reached (the supervisor
 * started the child `DEADLINE_MS` earlier) until every process is gone: the child process, and the
 * `sleep` its command became (its pid is written by the shell before `exec`, and polled every
 * millisecond until it no longer exists). The default timing is used: a 10 s grace before the
 * supervisor's own teardown, so what is measured is the child stopping its tool at its deadline.
 * The child counts its deadline from the start of its turn, after its start-up (~160 ms cold, see
 * `bench/spawn.ts`) and first model call setup: that lag is part of the overshoot as measured here.
 */
const RUNS = 30;
const DEADLINE_MS = 1_500;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function benchDeadlineOvershoot(): Promise<BenchResult> {
  const llm = await startFakeLlm({
    playbook: {
      scripts: [
        {
          steps: [
            {
              tool_calls: [{ name: 'exec', args: { command: 'echo $$ > pid && exec sleep 300' } }],
            },
          ],
        },
      ],
    },
  });
  const childGone: number[] = [];
  const stopToGone: number[] = [];
  const allGone: number[] = [];
  const statuses = new Map<string, number>();
  try {
    for (let i = 0; i < RUNS; i++) {
      const cwd = mkdtempSync(join(tmpdir(), 'arbor-bench-deadline-'));
      const payload = SpawnPayloadSchema.parse({
        instruction: 'Benchmark: wait.',
        intelligence: { endpoints: [{ url: llm.url }], model: 'bench' },
        telemetry: { run_id: 'bench', node_id: 'n0', node_path: '0' },
        limits: { deadline_ms: DEADLINE_MS },
        sandbox: { mode: 'off' },
      });
      const deadlineAt = performance.now() + DEADLINE_MS;
      let stoppedAt = Number.NaN;
      const run = new ProcessRun(payload, {
        command: childCommand({}),
        env: { PATH: process.env.PATH ?? '' },
        cwd,
        timing: DEFAULT_TIMING,
        handlers: {
          onToolRequest: () => Promise.resolve({ result: null, is_error: true }),
          onBudgetRequest: () => Promise.resolve({ ok: true }),
          onFrame: (frame) => {
            if (frame.type === 'event' && frame.event === 'loop.stop')
              stoppedAt = performance.now();
          },
        },
      });
      const end = await run.result;
      childGone.push(performance.now() - deadlineAt);
      const pid = Number(readFileSync(join(cwd, 'pid'), 'utf8').trim());
      while (isAlive(pid)) await sleep(1);
      allGone.push(performance.now() - deadlineAt);
      stopToGone.push(performance.now() - stoppedAt);
      statuses.set(end.outcome.status, (statuses.get(end.outcome.status) ?? 0) + 1);
      rmSync(cwd, { recursive: true, force: true });
    }
  } finally {
    await llm.close();
  }
  const ms = (value: number): string => `${value.toFixed(1)} ms`;
  return {
    name: 'deadline-overshoot',
    metrics: {
      runs: RUNS,
      deadline: `${DEADLINE_MS} ms`,
      'grace (supervisor teardown after)': `${DEFAULT_TIMING.deadlineGraceMs} ms`,
      'deadline → child exited, p50': ms(median(childGone)),
      'deadline → all processes gone, p50': ms(median(allGone)),
      'deadline → all processes gone, p95': ms(percentile(allGone, 95)),
      'deadline → all processes gone, max': ms(Math.max(...allGone)),
      'child reported its deadline → all processes gone, p50': ms(median(stopToGone)),
      'child reported its deadline → all processes gone, p95': ms(percentile(stopToGone, 95)),
      statuses: [...statuses].map(([status, n]) => `${status} ×${n}`).join(', '),
    },
  };
}
