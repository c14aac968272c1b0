import {
  ArborError,
  IntelConfigSchema,
  formatIssues,
  isArborError,
  type IntelConfig,
} from '../protocol/index.js';
import { AllDownLatch } from './all-down-latch.js';
import { ALL_DOWN_CURVE, backoffDelay, type BackoffCurve, type Random } from './backoff.js';
import { checkOptions, type ClientMode, type ModelClientOptions } from './client-options.js';
import { sleep, systemClock, type Clock } from './clock.js';
import { EndpointPool, type Attempt } from './endpoint-pool.js';
import { cancelledError } from './intel-errors.js';
import type {
  CallOptions,
  EndpointHealth,
  IntelHealthEvent,
  ModelClient,
  ModelDelta,
  ModelRequest,
  ModelResponse,
} from './model.js';
import { fetchAnswer, openAnswerStream } from './model-attempts.js';
import type { PoolEndpoint } from './pool-endpoint.js';
import { prepareCall, toModelResponse } from './prepare-call.js';
import { readStream } from './read-stream.js';
import { configSecrets } from './scrub.js';
import { scrubSecrets } from '../protocol/index.js';
import { ToolNames } from './wire-names.js';

/** The model client, plus what its owner needs: its mode, and a way to stop every call. */
export interface IntelClient extends ModelClient {
  readonly mode: ClientMode;
  /** Cancels every call in flight; later calls fail with `cancelled`. */
  close(): void;
}

/** How many times one streamed call is made again after its stream broke off mid-answer. */
const MID_STREAM_RETRIES = 3;

function isMidStreamBreak(error: unknown): error is ArborError {
  return (
    (isArborError(error, 'intel_unavailable') || isArborError(error, 'intel_bad_response')) &&
    error.details.midStream === true
  );
}

function parseConfig(config: IntelConfig, what: string): IntelConfig {
  const parsed = IntelConfigSchema.safeParse(config, { reportInput: true });
  if (parsed.success) return parsed.data;
  // The issues quote what they reject (up to 40 characters): a key pasted into a URL, say.
  const issues = scrubSecrets(formatIssues(parsed.error.issues), configSecrets(config));
  throw new ArborError('config', `${what}: ${issues}`);
}

class ModelClientImpl implements IntelClient {
  readonly mode: ClientMode;
  readonly #latch = new AllDownLatch();
  readonly #inFlight = new Set<AbortController>();
  readonly #clock: Clock;
  readonly #random: Random;
  readonly #maxRetryWaitMs: number;
  readonly #onAttemptFailure: ModelClientOptions['onAttemptFailure'];
  readonly #onRateLimit: ModelClientOptions['onRateLimit'];
  readonly #allDownBackoff: BackoffCurve;
  #pool: EndpointPool;
  #isClosed = false;

  constructor(config: IntelConfig, options: ModelClientOptions) {
    checkOptions(options);
    this.mode = options.mode ?? 'one-shot';
    this.#clock = options.clock ?? systemClock;
    this.#random = options.random ?? Math.random;
    this.#maxRetryWaitMs = options.maxRetryWaitMs ?? 30_000;
    this.#allDownBackoff = options.allDownBackoff ?? ALL_DOWN_CURVE;
    this.#onAttemptFailure = options.onAttemptFailure;
    this.#onRateLimit = options.onRateLimit;
    this.#pool = this.#createPool(parseConfig(config, 'Invalid intelligence config'));
  }

  get model(): string {
    return this.#pool.config.model;
  }

  async generate(request: ModelRequest, options: CallOptions = {}): Promise<ModelResponse> {
    const names = new ToolNames(request.tools);
    const call = this.#begin(options.signal);
    try {
      const { value, endpoint } = await this.#serve(
        call.signal,
        (config) => async (ep, deadline) => {
          const prepared = prepareCall(request, ep, config, names, false, this.#clock);
          return { prepared, answer: await fetchAnswer(ep, deadline, prepared.wire) };
        },
      );
      return toModelResponse(value.answer, endpoint, value.prepared);
    } finally {
      call.end();
    }
  }

  /**
   * Streams an answer. A stream that breaks off mid-answer is a failed attempt like any other: it
   * counts against its endpoint, a `reset` delta tells the caller to drop what it has seen, and
   * the call is served again (another endpoint, or the same after its backoff), at most
   * `MID_STREAM_RETRIES` times; never a half answer reported as complete.
   */
  async *stream(request: ModelRequest, options: CallOptions = {}): AsyncGenerator<ModelDelta> {
    const names = new ToolNames(request.tools);
    const call = this.#begin(options.signal);
    try {
      let broken: number | undefined;
      for (let retries = 0; ; retries++) {
        const { value, endpoint, pool } = await this.#serve(
          call.signal,
          (config) => async (ep, deadline) => {
            const prepared = prepareCall(request, ep, config, names, true, this.#clock);
            return { prepared, opened: await openAnswerStream(ep, deadline, prepared.wire) };
          },
          broken,
        );
        try {
          yield* readStream(value.opened, endpoint, pool, value.prepared, call.signal);
          return;
        } catch (error) {
          if (!isMidStreamBreak(error) || retries >= MID_STREAM_RETRIES || call.signal.aborted)
            throw error;
          broken = endpoint.index;
          yield { type: 'reset', reason: error.message };
        }
      }
    } finally {
      call.end();
    }
  }

  swap(config: IntelConfig): void {
    const parsed = parseConfig(config, 'Intelligence swap refused, the current endpoints stay');
    this.#pool = this.#createPool(parsed);
  }

  health(): EndpointHealth[] {
    return this.#pool.health();
  }

  onHealth(listener: (event: IntelHealthEvent) => void): () => void {
    return this.#latch.subscribe(listener);
  }

  close(): void {
    this.#isClosed = true;
    const reason = new ArborError('cancelled', 'The model client was closed.');
    for (const controller of this.#inFlight) controller.abort(reason);
  }

  #createPool(config: IntelConfig): EndpointPool {
    return new EndpointPool(config, {
      clock: this.#clock,
      random: this.#random,
      maxRetryWaitMs: this.#maxRetryWaitMs,
      onAttemptFailure: this.#onAttemptFailure,
      onRateLimit: this.#onRateLimit,
    });
  }

  /** Registers a call so `close` can cancel it; links the caller's signal. */
  #begin(signal: AbortSignal | undefined): { signal: AbortSignal; end: () => void } {
    if (this.#isClosed) throw new ArborError('cancelled', 'The model client is closed.');
    if (signal?.aborted === true) throw cancelledError(signal.reason);
    const controller = new AbortController();
    const onAbort = (): void => {
      controller.abort(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    this.#inFlight.add(controller);
    return {
      signal: controller.signal,
      end: () => {
        signal?.removeEventListener('abort', onAbort);
        this.#inFlight.delete(controller);
      },
    };
  }

  /**
   * Sweeps the pool until an endpoint serves the call. When the sweep finds every endpoint
   * unusable, the latch hears of it; a one-shot caller gets `intel_unavailable`, a long-lived one
   * waits and sweeps again, with the pool of the moment, so a swap takes effect.
   */
  async #serve<T>(
    signal: AbortSignal,
    attemptFor: (config: IntelConfig) => Attempt<T>,
    last?: number,
  ): Promise<{ value: T; endpoint: PoolEndpoint; pool: EndpointPool }> {
    for (let waits = 0; ; waits++) {
      const pool = this.#pool;
      const epoch = this.#latch.epoch;
      try {
        const served = await pool.sweep(
          attemptFor(pool.config),
          signal,
          last === undefined ? {} : { last },
        );
        this.#latch.markSuccess(served.endpoint.active);
        return { ...served, pool };
      } catch (error) {
        if (!isArborError(error, 'intel_unavailable')) throw error;
        this.#latch.markExhausted(epoch);
        if (this.mode === 'one-shot') throw error;
      }
      try {
        await sleep(this.#clock, backoffDelay(this.#allDownBackoff, waits, this.#random), signal);
      } catch (reason) {
        throw cancelledError(reason);
      }
    }
  }
}

/**
 * Creates the model client for an intelligence config (credentials already resolved, see
 * `resolveCredentials`). Throws a `config` error when the config is invalid.
 */
export function createModelClient(
  config: IntelConfig,
  options: ModelClientOptions = {},
): IntelClient {
  return new ModelClientImpl(config, options);
}
