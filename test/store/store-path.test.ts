import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../src/store/index.js';

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'arbor-store-path-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('the store path', () => {
  it('creates missing directories with a .gitignore, so a repository shows nothing untracked', () => {
    const repo = tempDir();
    execFileSync('git', ['init', '--quiet', repo]);
    const store = new SqliteStore(join(repo, '.arbor', 'runs', 'arbor.db'));
    store.createRun({ id: 'run_1', instruction: 'x', status: 'running', createdAt: 1, meta: {} });
    // While the store is open its WAL and shared-memory files exist beside it.
    expect(execFileSync('git', ['status', '--porcelain'], { cwd: repo, encoding: 'utf8' })).toBe(
      '',
    );
    store.close();
    expect(readFileSync(join(repo, '.arbor', 'runs', '.gitignore'), 'utf8')).toBe('*\n');
    expect(execFileSync('git', ['status', '--porcelain'], { cwd: repo, encoding: 'utf8' })).toBe(
      '',
    );
  });

  it('writes no .gitignore into a directory it did not create', () => {
    const dir = tempDir();
    new SqliteStore(join(dir, 'arbor.db')).close();
    expect(existsSync(join(dir, '.gitignore'))).toBe(false);
  });

  it('refuses a file that is not an SQLite database without writing anything', () => {
    const dir = tempDir();
    const path = join(dir, 'notes.txt');
    writeFileSync(path, 'root:x:0:0:root:/root:/bin/bash\n');
    expect(() => new SqliteStore(path)).toThrow(
      `Cannot use the store at ${path}: it is not an SQLite database.`,
    );
    expect(readFileSync(path, 'utf8')).toBe('root:x:0:0:root:/root:/bin/bash\n');
    expect(existsSync(`${path}-wal`)).toBe(false);
    expect(existsSync(`${path}-shm`)).toBe(false);
  });

  it('names the problem for a directory, a file in the way, and a directory it cannot create', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'file'), 'x');
    mkdirSync(join(dir, 'sub'));
    expect(() => new SqliteStore(join(dir, 'sub'))).toThrow(
      `Cannot use the store at ${join(dir, 'sub')}: it is a directory; --db names the database file.`,
    );
    expect(() => new SqliteStore(join(dir, 'file', 'a', 'arbor.db'))).toThrow(
      `${join(dir, 'file')} is not a directory.`,
    );
    // Node's recursive mkdir never returns for this path; the store must fail at once.
    expect(() => new SqliteStore('/proc/nope/x.db')).toThrow(
      'Cannot use the store at /proc/nope/x.db: cannot create the directory /proc/nope (ENOENT).',
    );
  });

  it('opens an empty file as a new store', () => {
    const path = join(tempDir(), 'empty.db');
    writeFileSync(path, '');
    const store = new SqliteStore(path);
    store.createRun({ id: 'run_1', instruction: 'x', status: 'running', createdAt: 1, meta: {} });
    expect(store.getRun('run_1')?.status).toBe('running');
    store.close();
  });
});
