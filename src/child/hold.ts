/**
 * The pause switch. A paused session waits at its next step boundary; control keeps flowing, and a
 * cancel (the signal) releases the wait, so cancel beats pause.
 */
export class Hold {
  #paused = false;
  #release: (() => void)[] = [];

  get paused(): boolean {
    return this.#paused;
  }

  pause(): void {
    this.#paused = true;
  }

  resume(): void {
    this.#paused = false;
    const waiters = this.#release;
    this.#release = [];
    for (const release of waiters) release();
  }

  /** Resolves at once unless paused; otherwise on `resume` or when the signal fires. */
  wait(signal: AbortSignal): Promise<void> {
    if (!this.#paused || signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        signal.removeEventListener('abort', done);
        resolve();
      };
      signal.addEventListener('abort', done, { once: true });
      this.#release.push(done);
    });
  }
}
