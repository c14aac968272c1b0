/**
 * Time as the intelligence layer sees it. Breakers, retry backoff, the all-down backoff and the
 * per-call timeout all read this, so tests drive them with a manual clock instead of waiting.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /** Calls `callback` once after `ms` milliseconds; returns a function that cancels it. */
  setTimer(callback: () => void, ms: number): () => void;
}

/** The real clock: `Date.now` and `setTimeout`. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer: (callback, ms) => {
    const timer = setTimeout(callback, ms);
    return () => {
      clearTimeout(timer);
    };
  },
};

/**
 * Waits `ms` milliseconds on `clock`. Rejects with the signal's reason as soon as it aborts, and
 * leaves no timer or listener behind either way.
 */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted === true) return Promise.reject(signal.reason as Error);
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      cancel();
      reject(signal?.reason as Error);
    };
    const cancel = clock.setTimer(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
