import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { availableSqlDrivers, openSqlDatabase } from '../../src/store/index.js';
import { ARBOR_BIN } from '../helpers/run-arbor.js';

const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
const hasNodeSqlite = major > 22 || (major === 22 && minor >= 13);

describe('the SQLite binding', () => {
  it('is node:sqlite where Node.js has it without a flag, and better-sqlite3 before that', () => {
    const db = openSqlDatabase(':memory:');
    expect(db.driver).toBe(hasNodeSqlite ? 'node:sqlite' : 'better-sqlite3');
    db.close();
    expect(availableSqlDrivers()[0]).toBe(db.driver);
  });

  it('loads without a warning reaching stderr, in the built CLI', () => {
    const doctor = spawnSync(process.execPath, [ARBOR_BIN, 'doctor', '--json'], {
      encoding: 'utf8',
      env: { ...process.env, ARBOR_DB: ':memory:' },
    });
    expect(doctor.stderr).toBe('');
    const report = JSON.parse(doctor.stdout) as { checks: { name: string; detail: string }[] };
    const sqlite = report.checks.find((check) => check.name === 'sqlite');
    expect(sqlite?.detail).toMatch(
      new RegExp(`^SQLite [0-9.]+ through ${hasNodeSqlite ? 'node:sqlite' : 'better-sqlite3'}$`),
    );
  });
});

describe.each(availableSqlDrivers())('SqlDatabase on %s', (driver) => {
  function table() {
    const db = openSqlDatabase(':memory:', driver);
    db.exec('CREATE TABLE t (k TEXT PRIMARY KEY, n INTEGER, r REAL)');
    const insert = db.prepare('INSERT INTO t (k, n, r) VALUES (@k, @n, @r)');
    const keys = (): string[] =>
      (db.prepare('SELECT k FROM t ORDER BY k').all() as { k: string }[]).map((row) => row.k);
    return { db, insert, keys };
  }

  it('binds @names from bare keys and positional values, and reads rows back', () => {
    const { db, insert } = table();
    expect(Number(insert.run({ k: 'a', n: 1, r: null }).changes)).toBe(1);
    insert.run({ k: 'b', n: 2, r: 2.5 });
    expect(db.prepare('SELECT * FROM t WHERE k = ?').get('b')).toEqual({ k: 'b', n: 2, r: 2.5 });
    expect(db.prepare('SELECT k FROM t WHERE n >= ? ORDER BY k LIMIT ?').all(1, -1)).toEqual([
      { k: 'a' },
      { k: 'b' },
    ]);
    expect(db.prepare('SELECT * FROM t WHERE k = ?').get('none')).toBeUndefined();
    db.close();
    expect(db.isOpen).toBe(false);
  });

  it('commits a transaction that returns and rolls back one that throws', () => {
    const { db, insert, keys } = table();
    const add = db.transaction((...names: string[]) => {
      for (const k of names) insert.run({ k, n: 0, r: null });
      return names.length;
    });
    expect(add('a', 'b')).toBe(2);
    // The second insert breaks the primary key: the first one of the same call is undone.
    expect(() => add('c', 'a')).toThrow();
    expect(keys()).toEqual(['a', 'b']);
    db.close();
  });

  it('runs a nested transaction as a savepoint of the outer one', () => {
    const { db, insert, keys } = table();
    const inner = db.transaction((k: string) => {
      insert.run({ k, n: 0, r: null });
      throw new Error('inner fails');
    });
    const outer = db.transaction(() => {
      insert.run({ k: 'outer', n: 0, r: null });
      expect(() => inner('inner')).toThrow('inner fails');
      insert.run({ k: 'after', n: 0, r: null });
    });
    outer();
    expect(keys()).toEqual(['after', 'outer']);
    // An outer failure undoes what a committed inner transaction wrote.
    const failing = db.transaction(() => {
      db.transaction(() => insert.run({ k: 'kept?', n: 0, r: null }))();
      throw new Error('outer fails');
    });
    expect(() => failing()).toThrow('outer fails');
    expect(keys()).toEqual(['after', 'outer']);
    db.close();
  });

  it('reads and sets pragmas as single values', () => {
    const db = openSqlDatabase(':memory:', driver);
    expect(db.pragma('user_version')).toBe(0);
    db.pragma('user_version = 7');
    expect(db.pragma('user_version')).toBe(7);
    db.close();
  });
});
