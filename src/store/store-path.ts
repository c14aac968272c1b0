import {
  closeSync,
  mkdirSync,
  openSync,
  readSync,
  statSync,
  writeFileSync,
  type Stats,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ArborError } from '../protocol/index.js';

/** The first 16 bytes of every SQLite database file. */
const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');

/**
 * Checks a store path before SQLite sees it, and creates its directory. A path that names
 * something other than an SQLite file is refused without opening it, so nothing is written to
 * it. A directory arbor creates gets a `.gitignore` of `*`, so a run inside a repository leaves
 * no untracked files. Directories are created one level at a time: Node's recursive `mkdir`
 * never returns for some paths under `/proc`.
 */
export function prepareStorePath(path: string): void {
  if (path === ':memory:') return;
  const stat = statOrUndefined(path);
  if (stat !== undefined) {
    if (stat.isDirectory())
      throw storeError(path, 'it is a directory; --db names the database file');
    if (!stat.isFile()) throw storeError(path, 'it is not a regular file');
    checkSqliteHeader(path);
    return;
  }
  const storeDir = resolve(dirname(path));
  const missing: string[] = [];
  let dir = storeDir;
  let existing = statOrUndefined(dir);
  while (existing === undefined) {
    missing.unshift(dir);
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
    existing = statOrUndefined(dir);
  }
  if (existing !== undefined && !existing.isDirectory())
    throw storeError(path, `${dir} is not a directory`);
  for (const create of missing) {
    try {
      mkdirSync(create);
    } catch (error) {
      throw storeError(path, `cannot create the directory ${create} (${errorCode(error)})`, error);
    }
  }
  if (missing.length > 0) writeFileSync(join(storeDir, '.gitignore'), '*\n');
}

function checkSqliteHeader(path: string): void {
  const header = Buffer.alloc(SQLITE_HEADER.length);
  let read: number;
  try {
    const fd = openSync(path, 'r');
    try {
      read = readSync(fd, header, 0, header.length, 0);
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    throw storeError(path, `it cannot be read (${errorCode(error)})`, error);
  }
  // An empty file is an empty database to SQLite.
  if (read === 0) return;
  if (read < header.length || !header.equals(SQLITE_HEADER))
    throw storeError(path, 'it is not an SQLite database');
}

function statOrUndefined(path: string): Stats | undefined {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch (error) {
    // ENOTDIR: a component of the path is a file; the walk up finds and names it.
    if (errorCode(error) === 'ENOTDIR') return undefined;
    throw storeError(path, `it cannot be examined (${errorCode(error)})`, error);
  }
}

function errorCode(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code ?? (error instanceof Error ? error.message : String(error));
}

/** A store that cannot be used: a configuration error naming the path (exit 2 in the CLI). */
export function storeError(path: string, problem: string, cause?: unknown): ArborError {
  return new ArborError('config', `Cannot use the store at ${path}: ${problem}.`, {
    details: { path },
    cause,
  });
}
