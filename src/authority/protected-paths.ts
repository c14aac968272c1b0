import path from 'node:path';
import type { ProtectedPath } from '../protocol/index.js';
import { canonicalPath, isInside } from './path-scope.js';

/** arbor's state directory, relative to the working directory the run starts in. */
export const STATE_DIR = '.arbor';

/** The files SQLite keeps beside a database, whether they exist yet or not. */
const STORE_SUFFIXES = ['', '-wal', '-shm', '-journal'];

export interface RunStateOptions {
  /** The working directory the run started in. */
  cwd: string;
  /** The store file (`--db`), relative to `cwd` or absolute; `:memory:` has no file. */
  dbPath: string;
  /** Files a node may read but never write: a plan and its run-log. */
  readOnly?: readonly string[];
  /** Directories arbor keeps caches in: neither read nor written by any node. */
  caches?: readonly string[];
  /** Files holding secrets of arbor's own (the token `arbor serve` made): neither read nor written. */
  secrets?: readonly string[];
}

/**
 * The run's own state, subtracted from every node's grant whatever it says (`all` included): the
 * store with its `-wal`, `-shm` and `-journal` files (never read, never written), arbor's state
 * directory `.arbor/` (never written; never read while the store lives in it), the files given as
 * `readOnly` (a plan and its run-log) and any cache. Only these paths: never the whole working
 * directory, even when the store sits in it. Paths are taken as the real paths they are when the
 * run starts.
 */
export function runStatePaths(options: RunStateOptions): ProtectedPath[] {
  const out: ProtectedPath[] = [];
  const real = (p: string): string => canonicalPath(path.resolve(options.cwd, p));
  const state = real(STATE_DIR);
  if (options.dbPath !== ':memory:') {
    const db = real(options.dbPath);
    for (const suffix of STORE_SUFFIXES)
      out.push({ path: `${db}${suffix}`, kind: 'file', readable: false });
    out.push({ path: state, kind: 'dir', readable: !isInside(state, db) });
  } else {
    out.push({ path: state, kind: 'dir', readable: true });
  }
  for (const file of options.readOnly ?? [])
    out.push({ path: real(file), kind: 'file', readable: true });
  for (const dir of options.caches ?? [])
    out.push({ path: real(dir), kind: 'dir', readable: false });
  for (const file of options.secrets ?? [])
    out.push({ path: real(file), kind: 'file', readable: false });
  return dedupe(out);
}

/**
 * The protected path that forbids `access` to the absolute, normalized `target`, if any: for a
 * write every entry counts, for a read only those that are not `readable`.
 */
export function protectionOf(
  target: string,
  access: 'read' | 'write',
  list: readonly ProtectedPath[],
): ProtectedPath | undefined {
  return list.find(
    (entry) => (access === 'write' || !entry.readable) && isInside(entry.path, target),
  );
}

/** One entry per path; where two disagree, the stricter (`readable: false`) wins. */
function dedupe(list: readonly ProtectedPath[]): ProtectedPath[] {
  const byPath = new Map<string, ProtectedPath>();
  for (const entry of list) {
    const seen = byPath.get(entry.path);
    byPath.set(
      entry.path,
      seen === undefined ? entry : { ...seen, readable: seen.readable && entry.readable },
    );
  }
  return [...byPath.values()];
}
