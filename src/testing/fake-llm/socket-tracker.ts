import type { Socket } from 'node:net';

/**
 * Numbers the server's connections and tells when each closes, so a test can assert that a
 * cancelled call really let go of its socket.
 */
export class SocketTracker {
  readonly #open = new Map<number, Socket>();
  readonly #closed = new Set<number>();
  readonly #ids = new WeakMap<Socket, number>();
  readonly #waiters = new Map<number, (() => void)[]>();
  #next = 1;

  get openCount(): number {
    return this.#open.size;
  }

  track(socket: Socket): void {
    const id = this.#next++;
    this.#ids.set(socket, id);
    this.#open.set(id, socket);
    socket.once('close', () => {
      this.#open.delete(id);
      this.#closed.add(id);
      for (const resolve of this.#waiters.get(id) ?? []) resolve();
      this.#waiters.delete(id);
    });
  }

  idOf(socket: Socket): number {
    return this.#ids.get(socket) ?? 0;
  }

  /** Resolves when connection `id` has closed (at once if it already has). */
  waitForClose(id: number, signal?: AbortSignal): Promise<void> {
    if (this.#closed.has(id)) return Promise.resolve();
    if (signal?.aborted === true) return Promise.reject(signal.reason as Error);
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        reject(signal?.reason as Error);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const list = this.#waiters.get(id) ?? [];
      list.push(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      });
      this.#waiters.set(id, list);
    });
  }

  /** Destroys every open connection (hung requests included). */
  destroyAll(): void {
    for (const socket of this.#open.values()) socket.destroy();
  }
}
