/**
 * A token bucket for spawns: at most `count` spawns in a burst, refilled at `count` per `perMs`,
 * and a token given back when the child it started ends (`give`), so the bucket limits how fast
 * children start while others still run — a storm — never sequential work, where each child ends
 * before the next starts. Refill is computed when asked, so an idle bucket costs nothing.
 */
export class SpawnRate {
  readonly #count: number;
  readonly #perMs: number;
  #tokens: number;
  #at: number;

  constructor(count: number, perMs: number, now: number) {
    this.#count = count;
    this.#perMs = perMs;
    this.#tokens = count;
    this.#at = now;
  }

  /** Takes a token if one is left; false means the rate is exceeded. */
  take(now: number): boolean {
    this.#refill(now);
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }

  /** A child started with a token has ended: the token comes back (never past `count`). */
  give(now: number): void {
    this.#refill(now);
    this.#tokens = Math.min(this.#count, this.#tokens + 1);
  }

  /** Milliseconds until the next token (0 when one is left). */
  msUntilToken(now: number): number {
    this.#refill(now);
    if (this.#tokens >= 1) return 0;
    return Math.ceil(((1 - this.#tokens) * this.#perMs) / this.#count);
  }

  /** Tokens come back with time; an instant before the last one seen (read earlier) takes none. */
  #refill(now: number): void {
    if (now <= this.#at) return;
    this.#tokens = Math.min(
      this.#count,
      this.#tokens + ((now - this.#at) * this.#count) / this.#perMs,
    );
    this.#at = now;
  }
}
