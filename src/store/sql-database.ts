/**
 * The part of an SQLite binding the store uses, so the store runs on Node's built-in `node:sqlite`
 * where it exists and on `better-sqlite3` where it does not (see `open-sql-database.ts`).
 * Named parameters are written `@name` in SQL and passed as an object keyed by bare names.
 */

/** A value SQLite can bind or return. */
export type SqlValue = string | number | bigint | null | Uint8Array;

/** Positional values, or one object of named values. */
export type SqlParameters = [Record<string, SqlValue>] | SqlValue[];

export interface SqlStatement {
  run(...parameters: SqlParameters): { changes: number | bigint };
  get(...parameters: SqlParameters): unknown;
  all(...parameters: SqlParameters): unknown[];
}

export interface SqlDatabase {
  /** Which binding this is, for `arbor doctor` and error messages. */
  readonly driver: SqlDriverName;
  readonly isOpen: boolean;
  prepare(sql: string): SqlStatement;
  exec(sql: string): void;
  /** Runs `PRAGMA source` and returns the first column of the first row, if any. */
  pragma(source: string): unknown;
  /**
   * Wraps `fn` so that each call runs in one transaction: committed when it returns, rolled back
   * when it throws. A call inside another runs in a savepoint of the outer one.
   */
  transaction<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R;
  close(): void;
}

export type SqlDriverName = 'node:sqlite' | 'better-sqlite3';
