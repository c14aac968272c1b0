import type { Dialect, IntelActive } from '../protocol/index.js';
import type { Breaker } from './breaker.js';
import type { EndpointHealth } from './model.js';
import type { RateLimits } from './rate-limit-headers.js';

/** Weight of the newest sample in the latency average. */
const EWMA_ALPHA = 1 / 8;

/**
 * The running health record of one endpoint: totals, latency, and the last success and failure.
 * Breaker state is read from the breaker when a snapshot is taken, so the two never disagree.
 */
export class HealthRecorder {
  readonly #index: number;
  readonly #dialect: Dialect;
  readonly #transport: IntelActive['transport'];
  #totalCalls = 0;
  #totalFailures = 0;
  #ewmaLatencyMs: number | undefined;
  #lastOkAt: number | undefined;
  #lastErrorAt: number | undefined;
  #lastErrorKind: string | undefined;
  readonly #scope: string | undefined;
  #rateLimit: { at: number; limits: RateLimits } | undefined;

  constructor(
    index: number,
    dialect: Dialect,
    transport: IntelActive['transport'],
    scope?: string,
  ) {
    this.#index = index;
    this.#dialect = dialect;
    this.#transport = transport;
    this.#scope = scope;
  }

  /** The provider's limits as a response's headers gave them; the newest replaces the last. */
  recordRateLimit(now: number, limits: RateLimits): void {
    this.#rateLimit = { at: now, limits };
  }

  recordSuccess(now: number, latencyMs: number): void {
    this.#totalCalls += 1;
    this.#lastOkAt = now;
    this.#ewmaLatencyMs =
      this.#ewmaLatencyMs === undefined
        ? latencyMs
        : this.#ewmaLatencyMs + EWMA_ALPHA * (latencyMs - this.#ewmaLatencyMs);
  }

  recordFailure(now: number, kind: string): void {
    this.#totalCalls += 1;
    this.#totalFailures += 1;
    this.#lastErrorAt = now;
    this.#lastErrorKind = kind;
  }

  /**
   * A failure after the call was counted a success (a stream that broke after its first delta):
   * it changes the last error and the failure total, not the call count.
   */
  recordLateFailure(now: number, kind: string): void {
    this.#totalFailures += 1;
    this.#lastErrorAt = now;
    this.#lastErrorKind = kind;
  }

  snapshot(breaker: Breaker, now: number): EndpointHealth {
    return {
      index: this.#index,
      dialect: this.#dialect,
      transport: this.#transport,
      state: breaker.state(now),
      consecutiveFailures: breaker.consecutiveFailures,
      totalCalls: this.#totalCalls,
      totalFailures: this.#totalFailures,
      ewmaLatencyMs: this.#ewmaLatencyMs,
      lastOkAt: this.#lastOkAt,
      lastErrorAt: this.#lastErrorAt,
      lastErrorKind: this.#lastErrorKind,
      openedAt: breaker.openedAt,
      cooldownMs: breaker.cooldownMs,
      ...(this.#scope === undefined ? {} : { scope: this.#scope }),
      ...(this.#rateLimit === undefined ? {} : { rateLimit: this.#rateLimit }),
    };
  }
}
