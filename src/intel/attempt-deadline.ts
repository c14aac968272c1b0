import { AttemptFailure } from './attempt-failure.js';
import type { Clock } from './clock.js';

/**
 * The abort signal of one HTTP attempt: it fires when the caller's signal does, or when the
 * endpoint has been silent for `timeoutMs` (on the injected clock). A streamed answer `touch`es it
 * on every chunk, so the timeout bounds silence, not the length of the answer.
 *
 * The caller's signal is linked by hand rather than with `AbortSignal.any`: the link is removed
 * when the attempt ends, so a long-lived caller signal does not collect one listener per call.
 */
export class AttemptDeadline {
  readonly #controller = new AbortController();
  readonly #clock: Clock;
  readonly #timeoutMs: number;
  readonly #caller: AbortSignal | undefined;
  #cancelTimer: (() => void) | undefined;
  #isTimedOut = false;
  #isAdopted = false;

  constructor(clock: Clock, timeoutMs: number, caller?: AbortSignal) {
    this.#clock = clock;
    this.#timeoutMs = timeoutMs;
    this.#caller = caller;
    if (caller?.aborted === true) {
      this.#controller.abort(caller.reason);
      return;
    }
    caller?.addEventListener('abort', this.#onCallerAbort, { once: true });
    this.#arm();
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  get isTimedOut(): boolean {
    return this.#isTimedOut;
  }

  /** Whether a stream took over this deadline, to keep it running past the attempt. */
  get isAdopted(): boolean {
    return this.#isAdopted;
  }

  /** Restarts the silence timer. */
  touch(): void {
    if (this.#controller.signal.aborted) return;
    this.#cancelTimer?.();
    this.#arm();
  }

  adopt(): void {
    this.#isAdopted = true;
  }

  /**
   * Ends the attempt: stops the timer and unlinks the caller. With `abort`, also aborts the
   * request, which closes its socket if the body was not read to the end.
   */
  dispose(abort: boolean): void {
    this.#cancelTimer?.();
    this.#cancelTimer = undefined;
    this.#caller?.removeEventListener('abort', this.#onCallerAbort);
    if (abort && !this.#controller.signal.aborted) {
      this.#controller.abort(new AttemptFailure('cancelled', 'the attempt was abandoned'));
    }
  }

  readonly #onCallerAbort = (): void => {
    this.#cancelTimer?.();
    this.#controller.abort(this.#caller?.reason);
  };

  #arm(): void {
    this.#cancelTimer = this.#clock.setTimer(() => {
      this.#cancelTimer = undefined;
      this.#isTimedOut = true;
      this.#controller.abort(
        new AttemptFailure('timeout', `no answer within ${this.#timeoutMs} ms`),
      );
    }, this.#timeoutMs);
  }
}
