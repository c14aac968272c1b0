import type { StreamResponse } from '@a2a-js/sdk';

/** Updates a reader may fall behind by before it is let go (its stream ends). */
const MAX_QUEUED = 5000;

interface Reader {
  queue: StreamResponse[];
  wake: (() => void) | undefined;
  /** Fell too far behind, or its caller went away: it ends at its next read. */
  dropped: boolean;
}

/**
 * A task's updates for the readers attached now (a stream or a subscription): each gets every
 * update from when it attached, in order, and never holds the run up. A reader that falls more
 * than 5000 updates behind, or whose caller goes away (`signal`), is let go. Closing ends every
 * reader once it has read what it has.
 */
export class TaskFeed {
  readonly #readers = new Set<Reader>();
  #closed = false;

  get closed(): boolean {
    return this.#closed;
  }

  push(update: StreamResponse): void {
    for (const reader of this.#readers) {
      if (reader.queue.length >= MAX_QUEUED) {
        reader.dropped = true;
        reader.queue.length = 0;
      } else reader.queue.push(update);
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
  read(
    until: (update: StreamResponse) => boolean,
    signal?: AbortSignal,
  ): AsyncGenerator<StreamResponse> {
    const reader: Reader = { queue: [], wake: undefined, dropped: false };
    this.#readers.add(reader);
    const leave = (): void => {
      reader.dropped = true;
      reader.wake?.();
    };
    if (signal?.aborted === true) reader.dropped = true;
    signal?.addEventListener('abort', leave, { once: true });
    const readers = this.#readers;
    const closed = (): boolean => this.#closed;
    return (async function* () {
      try {
        for (;;) {
          if (reader.dropped) return;
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
        signal?.removeEventListener('abort', leave);
      }
    })();
  }
}
