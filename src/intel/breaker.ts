import type { BreakerSettings } from '../protocol/index.js';
import type { BreakerState } from './model.js';

/** Leave to call an endpoint, handed out by `Breaker.admit`. A probe is the half-open trial. */
export interface BreakerTicket {
  readonly isProbe: boolean;
}

const PASS: BreakerTicket = { isProbe: false };

/**
 * One endpoint's circuit breaker.
 *
 * closed → open after `threshold` consecutive failures. Open for a cooldown, then half-open:
 * exactly one probe goes through while other callers skip the endpoint. A successful probe closes
 * it and resets the cooldown; a failed one re-opens it with the cooldown doubled, up to
 * `cooldown_max_ms`. Time is passed in, so the breaker has no timers and tests need no waiting.
 */
export class Breaker {
  readonly #settings: BreakerSettings;
  #open = false;
  #openedAt = 0;
  #cooldownMs: number;
  /** The probe in flight while half-open, if any. */
  #probe: BreakerTicket | undefined;
  #consecutiveFailures = 0;

  constructor(settings: BreakerSettings) {
    this.#settings = settings;
    this.#cooldownMs = settings.cooldown_ms;
  }

  state(now: number): BreakerState {
    if (!this.#open) return 'closed';
    return now >= this.#openedAt + this.#cooldownMs ? 'half_open' : 'open';
  }

  get consecutiveFailures(): number {
    return this.#consecutiveFailures;
  }

  /** When the breaker last opened, while it is not closed. */
  get openedAt(): number | undefined {
    return this.#open ? this.#openedAt : undefined;
  }

  /** The cooldown that applies now (or to the next opening, while closed), in milliseconds. */
  get cooldownMs(): number {
    return this.#cooldownMs;
  }

  /** Milliseconds until a probe may go through; 0 when the endpoint can be called now. */
  waitMs(now: number): number {
    if (!this.#open) return 0;
    return Math.max(0, this.#openedAt + this.#cooldownMs - now);
  }

  /** Whether a call may go to the endpoint now: a ticket, or `undefined` to skip it. */
  admit(now: number): BreakerTicket | undefined {
    const state = this.state(now);
    if (state === 'closed') return PASS;
    if (state === 'open' || this.#probe !== undefined) return undefined;
    this.#probe = { isProbe: true };
    return this.#probe;
  }

  /** Any success proves the endpoint answers: close and forget past failures. */
  succeed(): void {
    this.#open = false;
    this.#probe = undefined;
    this.#consecutiveFailures = 0;
    this.#cooldownMs = this.#settings.cooldown_ms;
  }

  /** A failure that counts against the endpoint. */
  fail(ticket: BreakerTicket, now: number): void {
    this.#consecutiveFailures += 1;
    if (ticket === this.#probe) {
      this.#probe = undefined;
      this.#reopen(now, Math.min(this.#cooldownMs * 2, this.#settings.cooldown_max_ms));
      return;
    }
    // Calls admitted before the breaker opened may fail after it did (and a probe overtaken by
    // another call's success is an ordinary call): they neither re-open it nor stretch the cooldown.
    if (!this.#open && this.#consecutiveFailures >= this.#settings.threshold) {
      this.#reopen(now, Math.min(this.#settings.cooldown_ms, this.#settings.cooldown_max_ms));
    }
  }

  /** The call ended without saying anything about the endpoint (cancelled, refused credential). */
  release(ticket: BreakerTicket): void {
    if (ticket === this.#probe) this.#probe = undefined;
  }

  #reopen(now: number, cooldownMs: number): void {
    this.#open = true;
    this.#openedAt = now;
    this.#cooldownMs = cooldownMs;
  }
}
