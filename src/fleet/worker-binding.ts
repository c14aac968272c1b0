import type { AdmittedWorker, AdmittedWorkers } from './admitted-workers.js';
import type { KeyLookup, UpRecord } from './envelope.js';
import type { FleetPublicKey } from './fleet-identity.js';

/**
 * Which worker a node's up stream is accepted from. Until a worker claims the node, an entry may
 * be signed by any admitted worker (the list read afresh), and only a `hello` is a claim; the
 * first valid claim binds the node to that worker, and from then on only its key is accepted, for
 * as long as it stays admitted. A second claim, by another worker or a replay, is refused like any
 * entry under the wrong key.
 */
export class WorkerBinding {
  readonly #admitted: AdmittedWorkers;
  #bound: AdmittedWorker | undefined;
  /** Key ids whose claims were refused and told so: each is told once. */
  readonly #told = new Set<string>();

  constructor(admitted: AdmittedWorkers) {
    this.#admitted = admitted;
  }

  /** The worker the node is bound to, once one claimed it. */
  get worker(): AdmittedWorker | undefined {
    return this.#bound;
  }

  /** The key the next entry must be signed with, by its id. */
  readonly lookup: KeyLookup = (keyId) => {
    const bound = this.#bound;
    if (bound === undefined)
      return (
        this.#admitted.find(keyId, { fresh: true })?.key ??
        'which no `[[queue.admit]]` entry of the supervisor admits'
      );
    return keyId === bound.key.id
      ? bound.key
      : `not the key of worker ${bound.name}, to which the node is bound`;
  };

  /** Binds the node to the worker of a verified `hello`; anything else is refused, with why. */
  claim(
    key: FleetPublicKey,
    record: UpRecord,
  ): { worker: AdmittedWorker; hello: Extract<UpRecord, { k: 'hello' }> } | string {
    if (this.#bound !== undefined) return `a second claim of a node bound to ${this.#bound.name}`;
    const worker = this.#admitted.find(key.id);
    if (record.k !== 'hello' || worker === undefined)
      return `a \`${record.k}\` record before any worker claimed the node`;
    this.#bound = worker;
    return { worker, hello: record };
  }

  /**
   * The key id to tell that its claim is refused, when an unbound node's entry (refused) names a
   * key no entry admits: the worker holding it puts the job back and stops. Each key is told once.
   */
  refusal(keyId: string | undefined): string | undefined {
    if (this.#bound !== undefined || keyId === undefined || keyId.length > 64) return undefined;
    if (this.#told.has(keyId) || this.#admitted.find(keyId) !== undefined) return undefined;
    this.#told.add(keyId);
    return keyId;
  }

  /** Why the bound worker's records are refused now (its entry was removed), if they are. */
  revoked(): string | undefined {
    const bound = this.#bound;
    if (bound === undefined || this.#admitted.find(bound.key.id) !== undefined) return undefined;
    return `worker ${bound.name} (key ${bound.key.id}) is no longer admitted`;
  }
}
