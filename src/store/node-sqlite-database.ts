import type { SqlDatabase, SqlParameters, SqlStatement } from './sql-database.js';

/**
 * The part of `node:sqlite` the store uses. Declared here because the `@types/node` this project
 * builds with (Node 20) has no `node:sqlite`.
 */
interface NodeSqliteStatement {
  run(...parameters: SqlParameters): { changes: number | bigint };
  get(...parameters: SqlParameters): unknown;
  all(...parameters: SqlParameters): unknown[];
  setAllowBareNamedParameters?(enabled: boolean): void;
  setAllowUnknownNamedParameters?(enabled: boolean): void;
}

interface NodeSqliteDatabase {
  readonly isOpen: boolean;
  prepare(sql: string): NodeSqliteStatement;
  exec(sql: string): void;
  close(): void;
}

export interface NodeSqliteModule {
  DatabaseSync: new (path: string) => NodeSqliteDatabase;
}

/** An `SqlDatabase` over Node's built-in `node:sqlite` (`DatabaseSync`). */
export class NodeSqliteSqlDatabase implements SqlDatabase {
  readonly driver = 'node:sqlite';
  readonly #db: NodeSqliteDatabase;
  /** How many transactions are open, the outermost first: inner ones are savepoints. */
  #depth = 0;

  constructor(sqlite: NodeSqliteModule, path: string) {
    this.#db = new sqlite.DatabaseSync(path);
  }

  get isOpen(): boolean {
    return this.#db.isOpen;
  }

  prepare(sql: string): SqlStatement {
    const statement = this.#db.prepare(sql);
    // Bind `@name` from the key `name`, as better-sqlite3 does (the default from Node 22.5 on),
    // and ignore keys a statement does not use, as better-sqlite3 does. Node versions before
    // that second setter (22.5 to 22.14, with `--experimental-sqlite` until 22.13) refuse unknown
    // keys instead; the store's statements use every key they are given.
    statement.setAllowBareNamedParameters?.(true);
    statement.setAllowUnknownNamedParameters?.(true);
    return statement;
  }

  exec(sql: string): void {
    this.#db.exec(sql);
  }

  pragma(source: string): unknown {
    const row = this.#db.prepare(`PRAGMA ${source}`).get() as Record<string, unknown> | undefined;
    return row === undefined ? undefined : Object.values(row)[0];
  }

  transaction<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R {
    return (...args: A): R => {
      const savepoint = `arbor_${this.#depth}`;
      this.#db.exec(this.#depth === 0 ? 'BEGIN' : `SAVEPOINT ${savepoint}`);
      this.#depth++;
      try {
        const result = fn(...args);
        this.#depth--;
        this.#db.exec(this.#depth === 0 ? 'COMMIT' : `RELEASE ${savepoint}`);
        return result;
      } catch (error) {
        this.#depth--;
        this.#db.exec(
          this.#depth === 0 ? 'ROLLBACK' : `ROLLBACK TO ${savepoint}; RELEASE ${savepoint}`,
        );
        throw error;
      }
    };
  }

  close(): void {
    this.#db.close();
  }
}
