import type { SqlDatabase } from './sql-database.js';

/**
 * Writes committed together, in one transaction, at the end of the current turn of the event
 * loop, or earlier when `flush` is called. Records come in bursts (many children streaming at
 * once), and one transaction per record would spend most of the supervisor's time committing.
 * A write is a closure over a row already serialised, so an error in a value is its caller's, at
 * once, and the batch keeps the order the writes were made in.
 */
export class WriteBatch {
  readonly #db: SqlDatabase;
  readonly #commit: (writes: (() => void)[]) => void;
  #pending: (() => void)[] = [];
  #scheduled = false;

  constructor(db: SqlDatabase) {
    this.#db = db;
    this.#commit = db.transaction((writes: (() => void)[]) => {
      for (const write of writes) write();
    });
  }

  add(write: () => void): void {
    this.#pending.push(write);
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.flush();
    });
  }

  /**
   * Commits every waiting write now. If the batch cannot be committed, each write is made on its
   * own, so one that cannot be written does not take the others with it; the first failure is
   * then thrown.
   */
  flush(): void {
    this.#scheduled = false;
    if (this.#pending.length === 0 || !this.#db.isOpen) return;
    const writes = this.#pending;
    this.#pending = [];
    try {
      this.#commit(writes);
    } catch (error) {
      let first: unknown;
      for (const write of writes) {
        try {
          write();
        } catch (failure) {
          first ??= failure;
        }
      }
      throw first ?? error;
    }
  }
}
