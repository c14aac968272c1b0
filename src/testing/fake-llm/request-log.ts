import { ArborError, redactSecretMap } from '../../protocol/index.js';
import type { RecordedRequest } from './recorded-request.js';

interface Waiter {
  count: number;
  resolve: () => void;
  reject: (error: Error) => void;
}

/** The fake server's record of requests, and promises that settle as requests arrive. */
export class RequestLog {
  readonly #records: RecordedRequest[] = [];
  #waiters: Waiter[] = [];

  get records(): readonly RecordedRequest[] {
    return this.#records;
  }

  /** Records a request (its credential headers redacted) and returns the live record. */
  add(init: {
    method: string;
    path: string;
    dialect: RecordedRequest['dialect'];
    headers: Record<string, string>;
    socket: number;
  }): RecordedRequest {
    const record: RecordedRequest = {
      seq: this.#records.length + 1,
      at: Date.now(),
      ...init,
      headers: redactSecretMap(init.headers),
      body: null,
      script: null,
      step: null,
      tool_results: null,
      stream: false,
      status: null,
      fault: null,
      error: null,
    };
    this.#records.push(record);
    this.#settle();
    return record;
  }

  /** Resolves once `count` requests have arrived in all. */
  waitFor(count: number, signal?: AbortSignal): Promise<void> {
    if (this.#records.length >= count) return Promise.resolve();
    if (signal?.aborted === true) return Promise.reject(signal.reason as Error);
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        this.#waiters = this.#waiters.filter((w) => w !== waiter);
        reject(signal?.reason as Error);
      };
      const waiter: Waiter = {
        count,
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        reject: (error) => {
          signal?.removeEventListener('abort', onAbort);
          reject(error);
        },
      };
      this.#waiters.push(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Rejects every pending wait: the server is closing. */
  close(): void {
    const error = new ArborError('cancelled', 'The fake LLM server closed.');
    for (const waiter of this.#waiters) waiter.reject(error);
    this.#waiters = [];
  }

  #settle(): void {
    const ready = this.#waiters.filter((w) => this.#records.length >= w.count);
    this.#waiters = this.#waiters.filter((w) => this.#records.length < w.count);
    for (const waiter of ready) waiter.resolve();
  }
}
