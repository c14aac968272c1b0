import type { StreamResponse } from '@a2a-js/sdk';

/**
 * A task's updates for the readers attached now (a stream or a subscription): each gets every
 * update from when it attached, in order, and never holds the run up: a slow reader's queue grows
 * instead. Closing ends every reader once it has read what it has.
 */
export class TaskFeed {
  readonly #readers = new Set<{ queue: StreamResponse[]; wake: (() => void) | undefined }>();
  #closed = false;

  get closed(): boolean {
    return this.#closed;
  }

  push(update: StreamResponse): void {
    for (const reader of this.#readers) {
      reader.queue.push(update);
      reader.wake?.();
    }
  }

  close(): void {
    this.#closed = true;
    for (const reader of this.#readers) reader.wake?.();
  }

  /**
   * Updates from now on (the reader is attached at once, not at its first read), until the feed
   * closes or `until` says an update is the last.
   */
  read(until: (update: StreamResponse) => boolean): AsyncGenerator<StreamResponse> {
    const reader: { queue: StreamResponse[]; wake: (() => void) | undefined } = {
      queue: [],
      wake: undefined,
    };
    this.#readers.add(reader);
    const readers = this.#readers;
    const closed = (): boolean => this.#closed;
    return (async function* () {
      try {
        for (;;) {
          for (let next = reader.queue.shift(); next !== undefined; next = reader.queue.shift()) {
            yield next;
            if (until(next)) return;
          }
          if (closed()) return;
          await new Promise<void>((resolve) => {
            reader.wake = resolve;
          });
          reader.wake = undefined;
        }
      } finally {
        readers.delete(reader);
      }
    })();
  }
}
