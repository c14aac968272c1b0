import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { SqliteStore } from '../store/index.js';
import { eventsAfter } from './run-data.js';

/**
 * Who is waiting on which run's events: a server whose runs go in its own process says when a run
 * has a new event, so a page sees it at once instead of at the next look at the store.
 */
export class RunWakeups {
  readonly #listeners = new Map<string, Set<() => void>>();

  notify(runId: string): void {
    for (const listener of this.#listeners.get(runId) ?? []) listener();
  }

  listen(runId: string, listener: () => void): () => void {
    const set = this.#listeners.get(runId) ?? new Set();
    set.add(listener);
    this.#listeners.set(runId, set);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.#listeners.delete(runId);
    };
  }
}

/** How often the store is read for a run going in another process (`arbor ui`). */
const POLL_MS = 250;
/** The least time between two batches, so a busy run is sent in batches, not event by event. */
const BATCH_MS = 100;
/** Events per read of the store. */
const BATCH = 1000;
/** A comment line this often keeps proxies from closing a quiet stream. */
const KEEPALIVE_MS = 15_000;

/**
 * A run's events as server-sent events, from the store: every event after `afterSeq` (each with
 * its `seq` as the SSE id, so a reconnecting `EventSource` resumes where it left off), then the
 * new ones as the run records them, then an `end` event with the run's status once it has ended.
 */
export function streamRunEvents(
  c: Context,
  store: SqliteStore,
  runId: string,
  afterSeq: number,
  wakeups: RunWakeups | undefined,
): Response {
  return streamSSE(c, async (stream) => {
    let wake: (() => void) | undefined;
    // Set by a nudge that came while no one waited: the next wait is skipped.
    const state = { nudged: false };
    const nudge = (): void => {
      state.nudged = true;
      wake?.();
    };
    const unlisten = wakeups?.listen(runId, nudge);
    stream.onAbort(nudge);
    let after = afterSeq;
    let quietSince = Date.now();
    try {
      while (!stream.aborted) {
        // The status is read before the events: those written as the run ends are in the batch.
        const status = store.getRun(runId)?.status;
        const batch = eventsAfter(store, runId, after, BATCH);
        for (const event of batch) {
          after = event.seq;
          await stream.writeSSE({ id: String(after), event: 'arbor', data: JSON.stringify(event) });
        }
        if (batch.length > 0) quietSince = Date.now();
        if (batch.length === BATCH) continue;
        if (status !== 'running') {
          await stream.writeSSE({
            event: 'end',
            data: JSON.stringify({ status: status ?? 'gone' }),
          });
          return;
        }
        if (Date.now() - quietSince >= KEEPALIVE_MS) {
          await stream.write(': keepalive\n\n');
          quietSince = Date.now();
        }
        await stream.sleep(BATCH_MS);
        if (!state.nudged)
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, wakeups === undefined ? POLL_MS : POLL_MS * 4);
            wake = () => {
              clearTimeout(timer);
              resolve();
            };
          });
        wake = undefined;
        state.nudged = false;
      }
    } finally {
      unlisten?.();
    }
  });
}
