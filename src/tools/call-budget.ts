import { ArborError, type CountBound } from '../protocol/index.js';

/**
 * The `max_calls` caveat as a counter: how many tool calls an agent may still make. A call is
 * taken when it is about to run (after its arguments are found valid), so a call the model got
 * wrong and must repeat does not spend the grant twice. Taking is synchronous, so calls racing in
 * one round can never run more than the limit between them.
 */
export class CallBudget {
  readonly #limit: CountBound;
  #used = 0;

  constructor(limit: CountBound) {
    if (limit !== 'unlimited' && !(Number.isSafeInteger(limit) && limit >= 0)) {
      throw new ArborError(
        'config',
        `Expected \`max_calls\` to be "unlimited" or a non-negative integer, got ${JSON.stringify(limit)}.`,
      );
    }
    this.#limit = limit;
  }

  /** Calls taken so far. */
  get used(): number {
    return this.#used;
  }

  get limit(): CountBound {
    return this.#limit;
  }

  /** Whether every call the limit allows has been taken. */
  get isSpent(): boolean {
    return this.#limit !== 'unlimited' && this.#used >= this.#limit;
  }

  /** Why the next call cannot run, for the model. */
  spentMessage(): string {
    return (
      `Tool call refused: this agent may make at most ${String(this.#limit)} tool calls ` +
      `(max_calls), and all of them are used.`
    );
  }

  /** Takes one call, or says why it cannot be taken. */
  take(): { ok: true } | { ok: false; message: string } {
    if (this.isSpent) return { ok: false, message: this.spentMessage() };
    this.#used += 1;
    return { ok: true };
  }
}
