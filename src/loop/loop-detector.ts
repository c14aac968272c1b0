import type { ToolCall } from '../protocol/index.js';
import { stableKey } from './stable-key.js';

/**
 * Counts identical tool calls (same name, same arguments in any key order) within a turn. A model
 * that makes the same call `threshold` times is looping: the turn ends `loop_detected` before the
 * call that reaches the threshold runs.
 */
export class LoopDetector {
  readonly #threshold: number;
  readonly #counts = new Map<string, number>();

  constructor(threshold: number) {
    this.#threshold = threshold;
  }

  /** Records a round of calls; returns the first call that reached the threshold, if any. */
  record(calls: readonly ToolCall[]): ToolCall | undefined {
    let looping: ToolCall | undefined;
    for (const call of calls) {
      const key = `${call.name}\u0000${stableKey(call.args)}`;
      const count = (this.#counts.get(key) ?? 0) + 1;
      this.#counts.set(key, count);
      if (count >= this.#threshold && looping === undefined) looping = call;
    }
    return looping;
  }
}
