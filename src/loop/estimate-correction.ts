/** Weight of the newest call's ratio in the running one. */
const SMOOTHING = 0.5;
/** The ratio never leaves this range: one odd call, or a provider that counts oddly, is bounded. */
const MIN_RATIO = 0.25;
const MAX_RATIO = 4;

/**
 * Corrects a node's admission estimates by what its calls report. `estimateTokens` counts four
 * characters a token; a provider's tokenizer, a language or a dense JSON transcript can be far
 * from that. After each call whose usage the provider reported, the ratio of its input tokens to
 * the raw estimate of the same call is folded into a running ratio (an exponential average,
 * weight 1/2 on the newest call, clamped to 1/4–4), and later estimates are scaled by it: the
 * node stops over- or under-holding after a call or two, and one odd call moves it half way.
 */
export class EstimateCorrection {
  #ratio = 1;

  /** The running ratio of reported input tokens to raw estimates (1 before any call). */
  get ratio(): number {
    return this.#ratio;
  }

  /** A raw estimate, corrected. */
  correct(raw: number): number {
    return Math.ceil(raw * this.#ratio);
  }

  /** A call estimated at `raw` (uncorrected) reported `inputTokens`. Ignored when either is 0. */
  observe(raw: number, inputTokens: number): void {
    if (!(raw > 0) || !(inputTokens > 0)) return;
    const next = this.#ratio + SMOOTHING * (inputTokens / raw - this.#ratio);
    this.#ratio = Math.min(MAX_RATIO, Math.max(MIN_RATIO, next));
  }
}
