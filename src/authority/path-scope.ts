import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { lstat, readlink, realpath } from 'node:fs/promises';
import path from 'node:path';
import { ArborError, type Scope } from '../protocol/index.js';

/**
 * Enforcement adaptors that turn the `fs_read` / `fs_write` axes and a leaf's write lane into
 * yes/no answers for one path. The lattice compares paths as exact strings; here a listed path
 * stands for itself and everything under it, compared whole component by whole component after
 * lexical normalization, so `/ws/../etc/passwd` and the sibling `/ws-secret` are not inside `/ws`.
 *
 * Lexical checks cannot see symlinks. The file tools do not resolve a path and then open it by
 * name (a swapped link would win that race): they walk it through directory descriptors and judge
 * each real path as they open it (`tools/builtin/safe-walk.ts`). `resolveReal` remains for paths
 * resolved once when a run starts, such as the protected paths.
 */

export interface PathContext {
  /** The absolute directory relative entries and paths are resolved against. */
  cwd: string;
}

/** Collapses `.`, `..` and repeated separators without touching the filesystem. */
export function normalizePath(p: string, { cwd }: PathContext): string {
  if (!path.isAbsolute(cwd)) {
    throw new ArborError('internal', `Expected \`cwd\` to be an absolute path, got \`${cwd}\`.`);
  }
  return path.resolve(cwd, p);
}

/** Is `target` the directory `root` itself or under it? Both must be absolute and normalized. */
export function isInside(root: string, target: string): boolean {
  if (target === root) return true;
  const prefix = root.endsWith(path.sep) ? root : root + path.sep;
  return target.startsWith(prefix);
}

/**
 * May a file tool touch `p` under an `fs_read` or `fs_write` scope? `"all"` allows every path; a
 * list allows each entry and everything under it, relative entries resolved against `cwd`; an
 * empty list allows nothing.
 */
export function permitsPath(scope: Scope, p: string, context: PathContext): boolean {
  if (scope === 'all') return true;
  const target = normalizePath(p, context);
  return scope.some((entry) => isInside(normalizePath(entry, context), target));
}

/**
 * Is every path `a` allows also allowed by `b`, reading entries as directory prefixes? This is
 * the order `permitsPath` enforces; the lattice's exact `scopeLeq` implies it but not conversely.
 */
export function pathScopeLeq(a: Scope, b: Scope, context: PathContext): boolean {
  if (b === 'all') return true;
  if (a === 'all') return false;
  return a.every((entry) => permitsPath(b, entry, context));
}

/**
 * The meet of two path scopes under prefix semantics: exactly the paths both allow. Two subtrees
 * intersect only when one holds the other, and then the intersection is the deeper one, so the
 * result keeps each entry of either side that the other side allows. Entries come back absolute
 * and normalized. The exact lattice meet would turn `["/ws"] ⊓ ["src/"]` into nothing at all;
 * this gives `["/ws/src"]`, which is what both sides mean.
 */
export function meetPathScopes(a: Scope, b: Scope, context: PathContext): Scope {
  if (a === 'all' && b === 'all') return 'all';
  const left = a === 'all' ? [] : a.map((entry) => normalizePath(entry, context));
  const right = b === 'all' ? [] : b.map((entry) => normalizePath(entry, context));
  if (a === 'all') return [...new Set(right)];
  if (b === 'all') return [...new Set(left)];
  const kept = [
    ...left.filter((entry) => right.some((r) => isInside(r, entry))),
    ...right.filter((entry) => left.some((l) => isInside(l, entry))),
  ];
  return [...new Set(kept)];
}

export type PathResolution =
  | { inside: true; /** The real path to open. */ path: string }
  | { inside: false; path: string; reason: string };

/** Symlink hops followed before giving up, as the kernel does (`ELOOP`). */
const MAX_LINK_HOPS = 40;

/**
 * Resolves `p` (relative to `root`, or absolute) through every symlink and says whether the real
 * path is inside the real `root`. A path that does not exist yet (a file being created) resolves
 * through its nearest existing parent, and a dangling symlink is followed to where it points, so
 * writing through a link to a file outside the root is refused too. Callers open the returned
 * path, not `p`; a link swapped in between this check and the open is left to the OS sandbox.
 */
export async function resolveInside(
  root: string,
  p: string,
  { signal }: { signal?: AbortSignal } = {},
): Promise<PathResolution> {
  if (!path.isAbsolute(root)) {
    throw new ArborError('internal', `Expected \`root\` to be an absolute path, got \`${root}\`.`);
  }
  const lexicalRoot = path.resolve(root);
  const lexical = normalizePath(p, { cwd: lexicalRoot });
  if (!isInside(lexicalRoot, lexical)) {
    return { inside: false, path: lexical, reason: `\`${p}\` is outside \`${root}\`` };
  }
  const realRoot = await realpath(lexicalRoot);
  const hops = { count: 0 };
  const real = await physicalPath(lexical, hops, signal);
  if (real === undefined) {
    return { inside: false, path: lexical, reason: `\`${p}\` has a symlink loop` };
  }
  if (!isInside(realRoot, real)) {
    return {
      inside: false,
      path: real,
      reason: `\`${p}\` resolves through a symlink to \`${real}\`, outside \`${root}\``,
    };
  }
  return { inside: true, path: real };
}

/**
 * The real path of the absolute path `p` through every symlink, or `undefined` on a symlink loop.
 * A path that does not exist yet resolves through its nearest existing parent, and a dangling
 * symlink is followed to where it points: what a write to `p` would really touch.
 */
export async function resolveReal(
  p: string,
  { signal }: { signal?: AbortSignal } = {},
): Promise<string | undefined> {
  if (!path.isAbsolute(p)) {
    throw new ArborError('internal', `Expected an absolute path, got \`${p}\`.`);
  }
  return physicalPath(path.resolve(p), { count: 0 }, signal);
}

/** The real path of `abs`, following links through missing tails; `undefined` on a link loop. */
async function physicalPath(
  abs: string,
  hops: { count: number },
  signal: AbortSignal | undefined,
): Promise<string | undefined> {
  signal?.throwIfAborted();
  try {
    return await realpath(abs);
  } catch (error) {
    if (errnoOf(error) === 'ELOOP') return undefined;
    if (!isMissing(error)) throw error;
  }
  const parent = path.dirname(abs);
  if (parent === abs) return abs;
  const realParent = await physicalPath(parent, hops, signal);
  if (realParent === undefined) return undefined;
  const candidate = path.join(realParent, path.basename(abs));
  const target = await linkTarget(candidate);
  if (target === undefined) return candidate;
  hops.count += 1;
  if (hops.count > MAX_LINK_HOPS) return undefined;
  return physicalPath(path.resolve(realParent, target), hops, signal);
}

/** Where `p` points if it is a symlink (dangling or not); `undefined` if it is not one. */
async function linkTarget(p: string): Promise<string | undefined> {
  try {
    const stats = await lstat(p);
    return stats.isSymbolicLink() ? await readlink(p) : undefined;
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

function isMissing(error: unknown): boolean {
  const code = errnoOf(error);
  return code === 'ENOENT' || code === 'ENOTDIR';
}

function errnoOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  return typeof error.code === 'string' ? error.code : undefined;
}

/**
 * The real path of the absolute path `p`, synchronously: every symlink resolved, a missing tail
 * resolved through its nearest existing parent, a dangling link followed to where it points. A
 * symlink loop leaves the path as it is. For paths a run is given (its grant, its store) when it
 * starts, so what is granted is what is there, not a link that can be swapped later.
 */
export function canonicalPath(p: string, hops = 0): string {
  const abs = path.resolve(p);
  try {
    return realpathSync(abs);
  } catch (error) {
    if (errnoOf(error) === 'ELOOP' || hops > MAX_LINK_HOPS) return abs;
    if (!isMissing(error)) return abs;
  }
  const parent = path.dirname(abs);
  if (parent === abs) return abs;
  const candidate = path.join(canonicalPath(parent, hops), path.basename(abs));
  let target: string | undefined;
  try {
    target = lstatSync(candidate).isSymbolicLink() ? readlinkSync(candidate) : undefined;
  } catch {
    target = undefined;
  }
  if (target === undefined) return candidate;
  return canonicalPath(path.resolve(path.dirname(candidate), target), hops + 1);
}
