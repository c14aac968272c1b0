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
  /**
   * Where the run's grant reaches: the store's own directory is hidden whole unless it holds one
   * of these (or the working directory), in which case only the store's files are.
   */
  granted?: readonly string[];
  /** Files a node may read but never write: a plan and its run-log. */
  readOnly?: readonly string[];
  /**
   * arbor's own directories (cache, state, config: `arborCacheDir` and its kin): neither read
   * nor written by any node.
   */
  ownDirs?: readonly string[];
  /** Files holding secrets of arbor's own (the token `arbor serve` made): neither read nor written. */
  secrets?: readonly string[];
  /**
   * What arbor trusts to contain and run agents — bubblewrap, git, the Node binary, arbor's own
   * code: read, never written, so no node can plant itself into the next run.
   */
  anchors?: readonly { path: string; kind: 'file' | 'dir' }[];
}

/**
 * The run's own state, subtracted from every node's grant whatever it says (`all` included):
 * the working directory's `.arbor/` whole (every store in it and its journals, run logs — a
 * sibling run's state too, whatever this run's `--db`), the store with its `-wal`, `-shm` and
 * `-journal` files and, where it holds nothing granted, the store's own directory; arbor's own
 * directories (cache, state, config) and secret files — none of them read or written; the files
 * given as `readOnly` (a plan and its run-log) and the trust anchors, read but never written.
 * Never the whole working directory, even when the store sits in it. Paths are taken as the real
 * paths they are when the run starts.
 */
export function runStatePaths(options: RunStateOptions): ProtectedPath[] {
  const out: ProtectedPath[] = [];
  const real = (p: string): string => canonicalPath(path.resolve(options.cwd, p));
  const cwd = real('.');
  out.push({ path: real(STATE_DIR), kind: 'dir', readable: false });
  if (options.dbPath !== ':memory:') {
    const db = real(options.dbPath);
    const dir = path.dirname(db);
    const granted = [cwd, ...(options.granted ?? []).map(real)];
    if (!granted.some((entry) => isInside(dir, entry)))
      out.push({ path: dir, kind: 'dir', readable: false });
    for (const suffix of STORE_SUFFIXES)
      out.push({ path: `${db}${suffix}`, kind: 'file', readable: false });
  }
  for (const file of options.readOnly ?? [])
    out.push({ path: real(file), kind: 'file', readable: true });
  for (const dir of options.ownDirs ?? [])
    out.push({ path: real(dir), kind: 'dir', readable: false });
  for (const file of options.secrets ?? [])
    out.push({ path: real(file), kind: 'file', readable: false });
  for (const anchor of options.anchors ?? [])
    out.push({ path: real(anchor.path), kind: anchor.kind, readable: true });
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
