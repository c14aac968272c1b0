import { ArborError } from '../protocol/index.js';
import type { BackoffCurve, Random } from './backoff.js';
import type { Clock } from './clock.js';
import type { RateLimitReport } from './model.js';

/**
 * What a caller does when every endpoint is down: a one-shot run fails with `intel_unavailable`
 * (exit 4); a long-lived one (a warm session, a daemon) waits with backoff and tries again.
 */
export type ClientMode = 'one-shot' | 'long-lived';

const CLIENT_MODES: readonly string[] = ['one-shot', 'long-lived'] satisfies ClientMode[];

export interface ModelClientOptions {
  mode?: ClientMode;
  clock?: Clock;
  random?: Random;
  /** A `Retry-After` longer than this fails over instead of waiting. Default 30 s. */
  maxRetryWaitMs?: number;
  /** The long-lived wait between sweeps while all is down. Default 1 s doubling to 30 s. */
  allDownBackoff?: BackoffCurve;
  /**
   * Told of every failed attempt at an endpoint (its index, the failure's kind and how long the
   * attempt took, in milliseconds), for metrics.
   */
  onAttemptFailure?: (endpoint: number, kind: string, ms: number) => void;
  /** Told what each response said of its provider's rate limits (index and scope, never a URL). */
  onRateLimit?: (report: RateLimitReport) => void;
}

function isNonNegative(value: number): boolean {
  return Number.isFinite(value) && value >= 0;
}

/** Checks the options a caller gave, before anything is built. */
export function checkOptions(options: ModelClientOptions): void {
  const fail = (message: string): never => {
    throw new ArborError('config', message);
  };
  const { mode, maxRetryWaitMs, allDownBackoff } = options;
  if (mode !== undefined && !CLIENT_MODES.includes(mode)) {
    fail(`Expected \`mode\` to be \`one-shot\` or \`long-lived\`, got \`${mode}\`.`);
  }
  if (maxRetryWaitMs !== undefined && !isNonNegative(maxRetryWaitMs)) {
    fail(`Expected \`maxRetryWaitMs\` to be a number of milliseconds >= 0, got ${maxRetryWaitMs}.`);
  }
  if (
    allDownBackoff !== undefined &&
    !(allDownBackoff.baseMs > 0 && allDownBackoff.maxMs >= allDownBackoff.baseMs)
  ) {
    fail(
      `Expected \`allDownBackoff\` to have 0 < baseMs <= maxMs, got ${allDownBackoff.baseMs} ms and ${allDownBackoff.maxMs} ms.`,
    );
  }
}
