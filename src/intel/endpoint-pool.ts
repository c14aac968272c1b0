import type { IntelConfig } from '../protocol/index.js';
import { AttemptDeadline } from './attempt-deadline.js';
import { AttemptFailure, classifyTransportError } from './attempt-failure.js';
import { RETRY_CURVE, backoffDelay, type Random } from './backoff.js';
import type { BreakerTicket } from './breaker.js';
import { sleep, type Clock } from './clock.js';
import { cancelledError, fatalError, unavailableError, type EndpointMiss } from './intel-errors.js';
import type { EndpointHealth, RateLimitReport } from './model.js';
import { PoolEndpoint } from './pool-endpoint.js';

/** One HTTP attempt against one endpoint, bounded by `deadline`. Throws to fail. */
export type Attempt<T> = (endpoint: PoolEndpoint, deadline: AttemptDeadline) => Promise<T>;

export interface PoolOptions {
  clock: Clock;
  random: Random;
  /** A `Retry-After` longer than this fails over instead of waiting, in milliseconds. */
  maxRetryWaitMs: number;
  /** Every failed attempt at an endpoint, retried or not (for metrics). */
  onAttemptFailure?: ((endpoint: number, kind: string, ms: number) => void) | undefined;
  /** What each response said of its provider's rate limits (when it said anything). */
  onRateLimit?: ((report: RateLimitReport) => void) | undefined;
}

type Visit<T> = { ok: true; value: T } | { ok: false; miss: EndpointMiss };

/**
 * The ordered endpoint list with a breaker and a health record each. A call makes one sweep:
 * endpoints in list order (so traffic returns to the primary as soon as its breaker lets it),
 * each visited at most once, with retries of 429/5xx on the same endpoint before moving on.
 */
export class EndpointPool {
  readonly endpoints: readonly PoolEndpoint[];
  readonly config: IntelConfig;
  readonly #options: PoolOptions;

  constructor(config: IntelConfig, options: PoolOptions) {
    this.config = config;
    this.#options = options;
    this.endpoints = config.endpoints.map(
      (endpoint, index) =>
        new PoolEndpoint(endpoint, index, config.breaker, {
          model: config.model,
          ...(options.onRateLimit === undefined ? {} : { onRateLimit: options.onRateLimit }),
        }),
    );
  }

  health(): EndpointHealth[] {
    const now = this.#options.clock.now();
    return this.endpoints.map((endpoint) => endpoint.health.snapshot(endpoint.breaker, now));
  }

  /**
   * Runs `attempt` on the first endpoint that answers (in list order; `last` moves one to the end). Throws `intel_unavailable` when none does,
   * `intel_auth` / `intel_bad_request` / `intel_bad_response` at once, `cancelled` on abort.
   */
  async sweep<T>(
    attempt: Attempt<T>,
    signal?: AbortSignal,
    options: { last?: number } = {},
  ): Promise<{ value: T; endpoint: PoolEndpoint }> {
    const misses: EndpointMiss[] = [];
    // `last`: the endpoint that just broke off a stream is tried after every other one.
    const order =
      options.last === undefined
        ? this.endpoints
        : [
            ...this.endpoints.filter((e) => e.index !== options.last),
            ...this.endpoints.filter((e) => e.index === options.last),
          ];
    for (const endpoint of order) {
      if (signal?.aborted === true) throw cancelledError(signal.reason);
      const now = this.#options.clock.now();
      const ticket = endpoint.breaker.admit(now);
      if (ticket === undefined) {
        const waitS = (endpoint.breaker.waitMs(now) / 1000).toFixed(1);
        const detail = waitS === '0.0' ? 'a probe is in flight' : `next probe in ${waitS} s`;
        misses.push({ index: endpoint.index, kind: 'breaker_open', attempts: 0, detail });
        continue;
      }
      const visit = await this.#visit(endpoint, ticket, attempt, signal);
      if (visit.ok) return { value: visit.value, endpoint };
      misses.push(visit.miss);
    }
    throw unavailableError(misses);
  }

  /** A streamed answer broke after the sweep counted it a success. */
  recordLateFailure(endpoint: PoolEndpoint, failure: AttemptFailure): void {
    const now = this.#options.clock.now();
    endpoint.health.recordLateFailure(now, failure.kind);
    if (failure.countsAgainstEndpoint) endpoint.breaker.fail({ isProbe: false }, now);
  }

  async #visit<T>(
    endpoint: PoolEndpoint,
    ticket: BreakerTicket,
    attempt: Attempt<T>,
    signal: AbortSignal | undefined,
  ): Promise<Visit<T>> {
    const { clock } = this.#options;
    for (let attempts = 1; ; attempts++) {
      const startedAt = clock.now();
      const deadline = new AttemptDeadline(clock, this.config.timeout_ms, signal);
      let failure: AttemptFailure;
      try {
        const value = await attempt(endpoint, deadline);
        if (!deadline.isAdopted) deadline.dispose(false);
        const now = clock.now();
        endpoint.breaker.succeed();
        endpoint.health.recordSuccess(now, now - startedAt);
        return { ok: true, value };
      } catch (error) {
        deadline.dispose(true);
        failure = this.#classify(error, deadline, signal, endpoint, ticket);
      }
      this.#options.onAttemptFailure?.(endpoint.index, failure.kind, clock.now() - startedAt);
      const waitMs = this.#retryWait(failure, attempts);
      if (waitMs !== undefined) {
        try {
          await sleep(clock, waitMs, signal);
        } catch (error) {
          endpoint.breaker.release(ticket);
          throw cancelledError(error);
        }
        continue;
      }
      return { ok: false, miss: this.#fail(endpoint, ticket, failure, attempts) };
    }
  }

  /** What a thrown value means for this attempt. Cancellation and arbor's own bugs are rethrown. */
  #classify(
    error: unknown,
    deadline: AttemptDeadline,
    signal: AbortSignal | undefined,
    endpoint: PoolEndpoint,
    ticket: BreakerTicket,
  ): AttemptFailure {
    if (signal?.aborted === true) {
      endpoint.breaker.release(ticket);
      throw cancelledError(signal.reason);
    }
    if (deadline.isTimedOut) {
      return new AttemptFailure('timeout', `no answer within ${this.config.timeout_ms} ms`);
    }
    const failure = classifyTransportError(error);
    if (failure === undefined) {
      endpoint.breaker.release(ticket);
      throw error;
    }
    return failure;
  }

  /** How long to wait before trying the same endpoint again, or `undefined` to stop trying it. */
  #retryWait(failure: AttemptFailure, attempts: number): number | undefined {
    if (!failure.isRetryable || attempts > this.config.retries) return undefined;
    const waitMs =
      failure.retryAfterMs ?? backoffDelay(RETRY_CURVE, attempts - 1, this.#options.random);
    return waitMs <= this.#options.maxRetryWaitMs ? waitMs : undefined;
  }

  /** Records a failed visit; throws when the failure ends the call. */
  #fail(
    endpoint: PoolEndpoint,
    ticket: BreakerTicket,
    failure: AttemptFailure,
    attempts: number,
  ): EndpointMiss {
    const now = this.#options.clock.now();
    endpoint.health.recordFailure(now, failure.kind);
    if (failure.countsAgainstEndpoint) endpoint.breaker.fail(ticket, now);
    else endpoint.breaker.release(ticket);
    const detail = endpoint.scrub(failure.message);
    if (failure.isFatal) {
      throw fatalError(endpoint.index, failure, detail, endpoint.adapter.responseName);
    }
    return { index: endpoint.index, kind: failure.kind, attempts, detail };
  }
}
