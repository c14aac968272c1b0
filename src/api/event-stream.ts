import type { ArborEvent } from '../runtime/index.js';

/**
 * A run's events for any number of readers, each from the first event. The run only appends:
 * it never waits for a reader, and a reader that falls behind reads late, losing nothing. A
 * `text.delta` no reader has seen yet is merged into the next one of the same node and step, so a
 * reader that lags gets fewer, longer deltas.
 */
export class EventStream implements AsyncIterable<ArborEvent> {
  readonly #log: ArborEvent[] = [];
  /** How far each reader has read. */
  readonly #cursors = new Set<{ at: number }>();
  #wake: (() => void)[] = [];
  #closed = false;

  push(event: ArborEvent): void {
    if (this.#closed) return;
    const last = this.#log.at(-1);
    if (
      event.type === 'text.delta' &&
      last?.type === 'text.delta' &&
      last.nodeId === event.nodeId &&
      last.step === event.step &&
      this.#unread(this.#log.length - 1)
    ) {
      this.#log[this.#log.length - 1] = { ...last, text: last.text + event.text };
    } else {
      this.#log.push(event);
    }
    this.#notify();
  }

  /** No more events: readers finish once they have read what there is. */
  close(): void {
    this.#closed = true;
    this.#notify();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<ArborEvent> {
    const cursor = { at: 0 };
    this.#cursors.add(cursor);
    try {
      for (;;) {
        for (let event = this.#log[cursor.at]; event !== undefined; event = this.#log[cursor.at]) {
          cursor.at += 1;
          yield event;
        }
        if (this.#closed) return;
        await new Promise<void>((resolve) => this.#wake.push(resolve));
      }
    } finally {
      this.#cursors.delete(cursor);
    }
  }

  #unread(index: number): boolean {
    for (const cursor of this.#cursors) if (cursor.at > index) return false;
    return true;
  }

  #notify(): void {
    const waiting = this.#wake;
    this.#wake = [];
    for (const resolve of waiting) resolve();
  }
}
