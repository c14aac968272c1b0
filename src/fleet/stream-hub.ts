import { setTimeout as delay } from 'node:timers/promises';
import type { Redis } from 'ioredis';

/** Where the entries of one watched stream go, in order. */
export type StreamSink = (fields: string[]) => void;

/**
 * How long a wake stream outlives its last wake: a hub's own `close` deletes it, this bounds what a
 * killed worker or supervisor leaves in Redis. A read finds a wake stream made again later.
 */
const WAKE_TTL_MS = 10 * 60_000;

/** Longest one blocking read waits before it looks again (a watch wakes it sooner). */
const BLOCK_MS = 5_000;
/** Most entries one read takes from each stream. */
const READ_COUNT = 256;
/** Wait before reading again after Redis failed a read (it reconnects by itself). */
const RETRY_MS = 200;

interface Watched {
  lastId: string;
  sink: StreamSink;
}

/**
 * Reads many streams over one blocking connection: every node's stream is read by one `XREAD`
 * with all of them, not by a connection each. Watching a new stream wakes the read in flight
 * through a wake stream of its own, so its first entry is not held back by the block.
 */
export class StreamHub {
  readonly #reader: Redis;
  readonly #writer: Redis;
  readonly #wakeKey: string;
  readonly #watched = new Map<string, Watched>();
  readonly #loop: Promise<void>;
  #isClosed = false;
  /** The last wake entry read: a wake added while no read was in flight is still seen. */
  #wakeId = '0';
  /** The last read failure, reported once until a read succeeds. */
  #onError: (error: Error) => void;

  constructor(options: {
    reader: Redis;
    writer: Redis;
    wakeKey: string;
    onError?: (error: Error) => void;
  }) {
    this.#reader = options.reader;
    this.#writer = options.writer;
    this.#wakeKey = options.wakeKey;
    this.#onError = options.onError ?? (() => undefined);
    this.#loop = this.#run();
  }

  /**
   * Delivers every entry of `stream`, from its first, to `sink`. The wake stream's expiry is set
   * again with each wake, so a process killed without `close` leaves nothing behind for long.
   */
  watch(stream: string, sink: StreamSink): void {
    this.#watched.set(stream, { lastId: '0', sink });
    this.#writer
      .multi()
      .xadd(this.#wakeKey, 'MAXLEN', '~', '16', '*', 'w', '1')
      .pexpire(this.#wakeKey, WAKE_TTL_MS)
      .exec()
      .catch(() => undefined);
  }

  unwatch(stream: string): void {
    this.#watched.delete(stream);
  }

  async close(): Promise<void> {
    if (this.#isClosed) return;
    this.#isClosed = true;
    this.#reader.disconnect();
    await this.#loop;
    await this.#writer.del(this.#wakeKey).catch(() => undefined);
  }

  async #run(): Promise<void> {
    while (!this.#isClosed) {
      const streams = [...this.#watched.entries()];
      let reply: [string, [string, string[]][]][] | null;
      try {
        reply = await this.#reader.xread(
          'COUNT',
          READ_COUNT,
          'BLOCK',
          BLOCK_MS,
          'STREAMS',
          this.#wakeKey,
          ...streams.map(([key]) => key),
          this.#wakeId,
          ...streams.map(([, watched]) => watched.lastId),
        );
      } catch (error) {
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- `close` sets it while the read waits
        if (this.#isClosed) return;
        this.#onError(error instanceof Error ? error : new Error(String(error)));
        await delay(RETRY_MS);
        continue;
      }
      for (const [key, entries] of reply ?? []) {
        if (key === this.#wakeKey) this.#wakeId = entries.at(-1)?.[0] ?? this.#wakeId;
        const watched = this.#watched.get(key);
        if (watched === undefined) continue;
        for (const [id, fields] of entries) {
          watched.lastId = id;
          // A sink may unwatch (its node ended) part-way through a batch.
          if (this.#watched.get(key) !== watched) break;
          // A sink that throws loses its entry, never the reads of every other stream.
          try {
            watched.sink(fields);
          } catch (error) {
            this.#onError(error instanceof Error ? error : new Error(String(error)));
          }
        }
      }
    }
  }
}
