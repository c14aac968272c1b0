/**
 * Watches the answers a session gives turn after turn. The same answer `turns` times running means
 * the session is stalled: it keeps saying the same thing whatever it is told.
 */
export class StallDetector {
  readonly #turns: number;
  #last: string | undefined;
  #run = 0;

  constructor(turns: number) {
    this.#turns = turns;
  }

  /** Records one turn's answer; true when it completes a stall. */
  observe(answer: string): boolean {
    const normalized = answer.trim();
    this.#run = normalized === this.#last ? this.#run + 1 : 1;
    this.#last = normalized;
    return this.#run >= this.#turns;
  }
}
