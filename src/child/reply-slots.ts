import { ArborError } from '../protocol/index.js';

interface Slot<T> {
  resolve(value: T): void;
  reject(error: unknown): void;
  timer: NodeJS.Timeout | undefined;
  cleanup(): void;
}

/**
 * Requests awaiting an answer from the supervisor, by id. Every request ends exactly once: with
 * its answer, on its timeout, on its signal, or when the channel closes (`closeAll`), so no waiter
 * can hang.
 */
export class ReplySlots<T> {
  readonly #slots = new Map<number, Slot<T>>();
  #nextId = 1;
  /** Why the channel closed; the error is made only when a request is refused with it. */
  #closedBecause: string | undefined;
  #closedWith: ArborError | undefined;

  /** The number of requests still waiting. */
  get size(): number {
    return this.#slots.size;
  }

  /**
   * Allocates an id, lets `send` put the request on the wire, and waits for the answer. `what`
   * names the request in errors ("tool `sleep`").
   */
  request(
    what: string,
    send: (id: number) => void,
    options: { timeoutMs?: number; signal?: AbortSignal } = {},
  ): Promise<T> {
    if (this.#closedBecause !== undefined) return Promise.reject(this.#closedError());
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      const { signal, timeoutMs } = options;
      const onAbort = (): void => {
        this.#finish(id);
        reject(
          new ArborError('cancelled', `${what} was cancelled while waiting for the supervisor`, {
            cause: signal?.reason,
          }),
        );
      };
      if (signal?.aborted === true) {
        onAbort();
        return;
      }
      const timer =
        timeoutMs === undefined
          ? undefined
          : setTimeout(() => {
              this.#finish(id);
              reject(
                new ArborError(
                  'timeout',
                  `${what} got no answer from the supervisor within ${timeoutMs} ms`,
                  { details: { timeoutMs } },
                ),
              );
            }, timeoutMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#slots.set(id, {
        resolve,
        reject,
        timer,
        cleanup: () => signal?.removeEventListener('abort', onAbort),
      });
      send(id);
    });
  }

  /** Delivers an answer; false when no request with that id is waiting (late or unknown). */
  settle(id: number, value: T): boolean {
    const slot = this.#finish(id);
    slot?.resolve(value);
    return slot !== undefined;
  }

  /** Ends every waiting request (and refuses new ones) with an error. */
  closeAll(reason: string): void {
    this.#closedBecause ??= reason;
    for (const id of [...this.#slots.keys()]) this.#finish(id)?.reject(this.#closedError());
  }

  #closedError(): ArborError {
    this.#closedWith ??= new ArborError('cancelled', this.#closedBecause ?? 'closed');
    return this.#closedWith;
  }

  #finish(id: number): Slot<T> | undefined {
    const slot = this.#slots.get(id);
    if (slot === undefined) return undefined;
    this.#slots.delete(id);
    if (slot.timer !== undefined) clearTimeout(slot.timer);
    slot.cleanup();
    return slot;
  }
}
