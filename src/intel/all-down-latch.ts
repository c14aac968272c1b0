import type { IntelActive } from '../protocol/index.js';
import type { IntelHealthEvent } from './model.js';

type Listener = (event: IntelHealthEvent) => void;

/**
 * The edge-triggered all-down flag. It reports a change, never a level: one `allDown: true` when
 * a sweep finds every endpoint unusable, one `allDown: false` on the next success, however many
 * calls fail or succeed around the edge.
 *
 * A sweep that started before some other call succeeded must not declare everything down on the
 * strength of failures that success has already contradicted; `epoch` (the count of successes)
 * lets a sweep tell. Without it, fifty concurrent calls straddling a recovery would flap.
 */
export class AllDownLatch {
  readonly #listeners = new Set<Listener>();
  #isDown = false;
  #successes = 0;

  get isDown(): boolean {
    return this.#isDown;
  }

  /** Take this when a sweep starts; hand it back to `markExhausted`. */
  get epoch(): number {
    return this.#successes;
  }

  markExhausted(epochAtStart: number): void {
    if (this.#isDown || this.#successes !== epochAtStart) return;
    this.#isDown = true;
    this.#emit({ allDown: true });
  }

  markSuccess(active: IntelActive): void {
    this.#successes += 1;
    if (!this.#isDown) return;
    this.#isDown = false;
    this.#emit({ allDown: false, active });
  }

  subscribe(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  #emit(event: IntelHealthEvent): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(event);
      } catch (error) {
        // A listener's bug must not fail the model call that happened to cross the edge; it is
        // reported the way Node reports a throwing event listener: as an uncaught exception.
        process.nextTick(() => {
          throw error;
        });
      }
    }
  }
}
