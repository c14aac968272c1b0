import { statSync } from 'node:fs';
import type { FleetPublicKey } from './fleet-identity.js';

/** A worker the operator admitted: its name, and the public key it signs with. */
export interface AdmittedWorker {
  name: string;
  key: FleetPublicKey;
}

/** Where the admitted list is read again from: the supervisor's config file, and its reader. */
export interface AdmissionSource {
  file: string;
  /** The workers the file admits now; throws when the file cannot be used. */
  read(file: string): AdmittedWorker[];
}

/** A lookup reads the source's file again when it changed, looking no more often than this. */
const RECHECK_MS = 1_000;

/**
 * The workers a supervisor admits, like SSH's authorized keys. Kept in step with the config file
 * it came from without a restart: a lookup looks at the file's modification time (at most once a
 * second, or at once when asked `fresh`, as a claim does) and reads the list again when it
 * changed. Removing a worker's entry revokes it. A file that cannot be read or parsed mid-edit
 * leaves the last list in force until it can.
 */
export class AdmittedWorkers {
  #byId: ReadonlyMap<string, AdmittedWorker>;
  readonly #source: AdmissionSource | undefined;
  readonly #now: () => number;
  #stamp: string | undefined;
  #checkedAt = Number.NEGATIVE_INFINITY;

  constructor(
    workers: readonly AdmittedWorker[],
    source?: AdmissionSource,
    now: () => number = Date.now,
  ) {
    this.#byId = byId(workers);
    this.#source = source;
    this.#now = now;
    if (source !== undefined) this.#stamp = stampOf(source.file);
  }

  /** How many workers are admitted now. */
  get size(): number {
    this.#refresh(false);
    return this.#byId.size;
  }

  /** The admitted worker whose key has `keyId`, or `undefined` when none is (or it was revoked). */
  find(keyId: string, options: { fresh?: boolean } = {}): AdmittedWorker | undefined {
    this.#refresh(options.fresh === true);
    return this.#byId.get(keyId);
  }

  #refresh(fresh: boolean): void {
    const source = this.#source;
    if (source === undefined) return;
    const now = this.#now();
    if (!fresh && now - this.#checkedAt < RECHECK_MS) return;
    this.#checkedAt = now;
    const stamp = stampOf(source.file);
    if (stamp === this.#stamp || stamp === undefined) return;
    try {
      this.#byId = byId(source.read(source.file));
      this.#stamp = stamp;
    } catch {
      // Mid-edit, or broken: the last list stays in force, and the next look tries again.
    }
  }
}

function byId(workers: readonly AdmittedWorker[]): ReadonlyMap<string, AdmittedWorker> {
  return new Map(workers.map((worker) => [worker.key.id, worker]));
}

/** What changes when a file is written: its modification time, size and inode. */
function stampOf(file: string): string | undefined {
  try {
    const stat = statSync(file, { bigint: true });
    return `${stat.mtimeNs}:${stat.size}:${stat.ino}`;
  } catch {
    return undefined;
  }
}
