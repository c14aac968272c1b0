/**
 * Backoff delays. Both curves double from a base to a cap and keep a random half of each step
 * ("equal jitter"), so callers that failed together do not come back together.
 */

/** Random numbers in [0, 1), injected so tests can fix the jitter. */
export type Random = () => number;

export interface BackoffCurve {
  baseMs: number;
  maxMs: number;
}

/** The delay before retry number `retry` (0 for the first retry). */
export function backoffDelay(curve: BackoffCurve, retry: number, random: Random): number {
  const step = Math.min(curve.maxMs, curve.baseMs * 2 ** Math.min(retry, 30));
  const jittered = step / 2 + (step / 2) * random();
  return Math.round(Math.min(curve.maxMs, Math.max(curve.baseMs, jittered)));
}

/** Retries of 429/5xx on the same endpoint when it sent no `Retry-After`: 0.5 s doubling to 8 s. */
export const RETRY_CURVE: BackoffCurve = { baseMs: 500, maxMs: 8_000 };

/** How a long-lived caller waits out an all-down spell: 1 s doubling to 30 s. */
export const ALL_DOWN_CURVE: BackoffCurve = { baseMs: 1_000, maxMs: 30_000 };
