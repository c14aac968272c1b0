/**
 * The messages injected into a warm session, first in first out. Messages that arrive while a turn
 * runs wait here; none is lost. Closing wakes a waiting reader with `undefined`.
 */
export class InjectQueue {
  readonly #items: string[] = [];
  #waiter: ((message: string | undefined) => void) | undefined;
  #closed = false;

  push(message: string): void {
    if (this.#closed) return;
    if (this.#waiter !== undefined) {
      const wake = this.#waiter;
      this.#waiter = undefined;
      wake(message);
      return;
    }
    this.#items.push(message);
  }

  close(): void {
    this.#closed = true;
    this.#waiter?.(undefined);
    this.#waiter = undefined;
  }

  get pending(): number {
    return this.#items.length;
  }

  /** The next message, or `undefined` once the queue is closed (or the signal fires) and empty. */
  next(signal: AbortSignal): Promise<string | undefined> {
    const item = this.#items.shift();
    if (item !== undefined) return Promise.resolve(item);
    if (this.#closed || signal.aborted) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const onAbort = (): void => {
        this.#waiter = undefined;
        resolve(undefined);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.#waiter = (message) => {
        signal.removeEventListener('abort', onAbort);
        resolve(message);
      };
    });
  }
}
