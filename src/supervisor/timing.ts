import { ArborError } from '../protocol/index.js';

/** How long the supervisor waits for things. Every value can be shortened by env, for tests. */
export interface Timing {
  /** Spawn → `ready`; past it the spawn has failed. */
  readyTimeoutMs: number;
  /** No frame but `pong` for this long, and no `pong` either: the child is stuck. */
  progressTimeoutMs: number;
  /** No `pong` for this long (with no progress): the child is stuck. */
  pongTimeoutMs: number;
  /** Added to a child's own deadline before the supervisor tears it down. */
  deadlineGraceMs: number;
  /** Kill ladder: wait after `cancel` before SIGTERM. */
  cancelGraceMs: number;
  /** Kill ladder: wait after SIGTERM before SIGKILL. */
  termGraceMs: number;
  /** Kill ladder: wait after SIGKILL for the exit to be seen. */
  killWaitMs: number;
  /** Protocol violations from one child before it is torn down. */
  violationLimit: number;
  /** Restart governor of warm children: first delay, doubling to the cap. */
  restartBaseMs: number;
  restartCapMs: number;
  /**
   * A node that has only waited this long (on a person, a sub-agent, an awaited turn) is parked:
   * its child process exits and it waits in the store until what it waits for arrives. 0: never.
   */
  parkAfterMs: number;
}

export const DEFAULT_TIMING: Timing = {
  readyTimeoutMs: 90_000,
  progressTimeoutMs: 120_000,
  pongTimeoutMs: 10_000,
  deadlineGraceMs: 10_000,
  cancelGraceMs: 3_000,
  termGraceMs: 2_000,
  killWaitMs: 2_000,
  violationLimit: 3,
  restartBaseMs: 500,
  restartCapMs: 30_000,
  parkAfterMs: 0,
};

const ENV_NAMES: Record<keyof Timing, string> = {
  readyTimeoutMs: 'ARBOR_READY_TIMEOUT_MS',
  progressTimeoutMs: 'ARBOR_PROGRESS_TIMEOUT_MS',
  pongTimeoutMs: 'ARBOR_PONG_TIMEOUT_MS',
  deadlineGraceMs: 'ARBOR_DEADLINE_GRACE_MS',
  cancelGraceMs: 'ARBOR_CANCEL_GRACE_MS',
  termGraceMs: 'ARBOR_TERM_GRACE_MS',
  killWaitMs: 'ARBOR_KILL_WAIT_MS',
  violationLimit: 'ARBOR_VIOLATION_LIMIT',
  restartBaseMs: 'ARBOR_RESTART_BASE_MS',
  restartCapMs: 'ARBOR_RESTART_CAP_MS',
  parkAfterMs: 'ARBOR_PARK_AFTER_MS',
};

/**
 * The timing in effect: defaults, overridden by `ARBOR_*` environment variables, then by what
 * `given` sets (a value left undefined is not given).
 */
export function timingFromEnv(
  env: NodeJS.ProcessEnv,
  given: { [K in keyof Timing]?: Timing[K] | undefined } = {},
): Timing {
  const timing = { ...DEFAULT_TIMING };
  for (const key of Object.keys(ENV_NAMES) as (keyof Timing)[]) {
    const name = ENV_NAMES[key];
    const raw = env[name];
    if (raw === undefined || raw === '') continue;
    const value = Number(raw);
    if (!Number.isSafeInteger(value) || value < 0) {
      throw new ArborError(
        'config',
        `Expected \`${name}\` to be a non-negative integer, got \`${raw}\`.`,
      );
    }
    timing[key] = value;
  }
  for (const key of Object.keys(given) as (keyof Timing)[]) timing[key] = given[key] ?? timing[key];
  return timing;
}

/** How often to ping: a third of the pong timeout, between 50 ms and 5 s. */
export function pingIntervalMs(timing: Timing): number {
  return Math.min(5_000, Math.max(50, Math.floor(timing.pongTimeoutMs / 3)));
}
