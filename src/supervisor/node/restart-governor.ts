/** Settings of the restart governor for long-lived (warm) children. */
export interface GovernorSettings {
  /** First restart delay, in milliseconds; it doubles with each failure in a row. */
  baseMs: number;
  /** Ceiling of the restart delay, in milliseconds. */
  capMs: number;
  /** Weighted failures within `windowMs` that open the breaker: no more restarts. */
  breakerFailures: number;
  windowMs: number;
  /** A child that dies before `ready` counts this many times: it will likely die again. */
  spawnFailureWeight: number;
}

export const DEFAULT_GOVERNOR: GovernorSettings = {
  baseMs: 500,
  capMs: 30_000,
  breakerFailures: 5,
  windowMs: 60_000,
  spawnFailureWeight: 3,
};

export type GovernorDecision =
  { restart: true; delayMs: number } | { restart: false; reason: string };

/**
 * Decides whether a crashed long-lived child is started again, and when: exponential backoff with
 * jitter between restarts, and a breaker that stops restarting a child that keeps failing. A
 * one-shot child is never restarted: its caller gets its outcome instead.
 */
export class RestartGovernor {
  readonly #settings: GovernorSettings;
  readonly #random: () => number;
  #failures: { at: number; weight: number }[] = [];
  #inARow = 0;

  constructor(settings: GovernorSettings = DEFAULT_GOVERNOR, random: () => number = Math.random) {
    this.#settings = settings;
    this.#random = random;
  }

  onFailure(now: number, options: { beforeReady: boolean }): GovernorDecision {
    const { baseMs, capMs, breakerFailures, windowMs, spawnFailureWeight } = this.#settings;
    this.#failures = this.#failures.filter((failure) => now - failure.at < windowMs);
    this.#failures.push({ at: now, weight: options.beforeReady ? spawnFailureWeight : 1 });
    this.#inARow += 1;
    const weighted = this.#failures.reduce((sum, failure) => sum + failure.weight, 0);
    if (weighted >= breakerFailures) {
      return {
        restart: false,
        reason: `restart breaker open: ${weighted} weighted failures within ${windowMs} ms (limit ${breakerFailures})`,
      };
    }
    const ceiling = Math.min(capMs, baseMs * 2 ** (this.#inARow - 1));
    // Jitter between half and all of the ceiling, so siblings that failed together spread out.
    return { restart: true, delayMs: Math.round(ceiling / 2 + this.#random() * (ceiling / 2)) };
  }

  /** A turn completed: the child is healthy again, and the backoff starts over. */
  onSuccess(): void {
    this.#inARow = 0;
  }
}
