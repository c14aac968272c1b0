import { setTimeout as delay } from 'node:timers/promises';
import { DownRecordSchema, open, type DownRecord, type KeyLookup } from './envelope.js';
import type { FleetPublicKey } from './fleet-identity.js';
import type { StreamHub } from './stream-hub.js';

interface DownStreamOptions {
  hub: StreamHub;
  stream: string;
  /** The key that signed the job: only its entries are taken. */
  supervisor: FleetPublicKey;
  /** This worker's own key id and worker id, which an `accept` must name. */
  keyId: string;
  workerId: string;
  log(message: string): void;
  now(): number;
}

/**
 * A worker's reading of one node's down stream: only entries signed by the supervisor that signed
 * the job are taken, in sequence (anything else is logged and dropped: a worker cannot forge its
 * way into another's node). The first thing a worker waits for is the supervisor's `accept`: its
 * claim won, or another worker's did. Control frames read before the child starts are held and
 * handed over in order.
 */
export class DownStream {
  /** When the supervisor was last heard from (any valid entry). */
  heardAt: number;
  readonly #options: DownStreamOptions;
  readonly #lookup: KeyLookup;
  readonly #held: DownRecord[] = [];
  #sink: ((record: DownRecord) => void) | undefined;
  #seq = 0;
  /** The supervisor's word on this worker's claim: `undefined` when accepted, else why not. */
  readonly #verdict: { settle(why: string | undefined): void; given: Promise<string | undefined> };

  constructor(options: DownStreamOptions) {
    const { supervisor } = options;
    this.#options = options;
    this.heardAt = options.now();
    this.#lookup = (keyId) =>
      keyId === supervisor.id ? supervisor : 'not the key of the supervisor that signed the job';
    let settle!: (why: string | undefined) => void;
    const given = new Promise<string | undefined>((resolve) => (settle = resolve));
    this.#verdict = { settle, given };
    options.hub.watch(options.stream, (fields) => {
      this.#onEntry(fields);
    });
  }

  /**
   * Waits for the supervisor to accept this worker's claim: `undefined` when it did, else why it
   * did not (it bound the node to another worker, said nothing for `timeoutMs`, or the worker is
   * stopping).
   */
  async accepted(timeoutMs: number, signal: AbortSignal): Promise<string | undefined> {
    const timer = new AbortController();
    try {
      return await Promise.race([
        this.#verdict.given,
        delay(timeoutMs, `no word from the supervisor for ${timeoutMs} ms`, {
          signal: AbortSignal.any([timer.signal, signal]),
        }).catch(() => 'the worker is stopping'),
      ]);
    } finally {
      timer.abort();
    }
  }

  /** The supervisor refused this worker's claim: it does not admit this worker's key. */
  isRefused = false;

  /** Whether no valid entry has come: no supervisor reads this node's streams. */
  get isSilent(): boolean {
    return this.#seq === 0;
  }

  /** Hands over the records held so far, then each one as it comes. */
  deliver(sink: (record: DownRecord) => void): void {
    this.#sink = sink;
    for (const record of this.#held.splice(0)) sink(record);
  }

  close(): void {
    this.#options.hub.unwatch(this.#options.stream);
    this.#verdict.settle('the job ended');
  }

  #onEntry(fields: string[]): void {
    const opened = open(this.#lookup, this.#options.stream, fields, this.#seq, DownRecordSchema);
    if (!opened.ok) {
      this.#options.log(`refused ${opened.reason} on ${this.#options.stream}`);
      return;
    }
    this.#seq += 1;
    this.heardAt = this.#options.now();
    const record = opened.record;
    if (record.k === 'refuse') {
      if (record.key !== this.#options.keyId) return;
      this.isRefused = true;
      this.#verdict.settle("the supervisor does not admit this worker's key");
      return;
    }
    if (record.k === 'accept') {
      this.#verdict.settle(
        record.key === this.#options.keyId && record.worker === this.#options.workerId
          ? undefined
          : `the supervisor bound the node to another worker (${record.worker}, key ${record.key})`,
      );
      return;
    }
    if (this.#sink === undefined) this.#held.push(record);
    else this.#sink(record);
  }
}
