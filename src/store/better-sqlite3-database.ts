import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import type { SqlDatabase, SqlStatement } from './sql-database.js';

/**
 * An `SqlDatabase` over `better-sqlite3`, the binding for a Node.js without `node:sqlite`
 * (20 to 22.12). It is an optional peer dependency with a native module, so it is required only when
 * this class is built: a Node.js with `node:sqlite` never loads it.
 */
export class BetterSqlite3SqlDatabase implements SqlDatabase {
  readonly driver = 'better-sqlite3';
  readonly #db: BetterSqlite3.Database;

  constructor(path: string) {
    const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
    this.#db = new Database(path);
  }

  get isOpen(): boolean {
    return this.#db.open;
  }

  prepare(sql: string): SqlStatement {
    return this.#db.prepare(sql);
  }

  exec(sql: string): void {
    this.#db.exec(sql);
  }

  pragma(source: string): unknown {
    return this.#db.pragma(source, { simple: true });
  }

  transaction<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R {
    // better-sqlite3's own transactions nest as savepoints, as `SqlDatabase` promises.
    const run = this.#db.transaction(fn);
    return (...args: A): R => run(...args);
  }

  close(): void {
    this.#db.close();
  }
}
