import { accessSync, constants, lstatSync, realpathSync, type Stats } from 'node:fs';
import path from 'node:path';
import { isInside } from '../../authority/index.js';

/**
 * Where arbor takes the programs it trusts to contain agents (bubblewrap) and to touch the user's
 * repository (git), in this order. Never a `PATH` lookup: a `PATH` entry can lie inside a grant —
 * an activated `.venv/bin`, `node_modules/.bin` under `npm run`, direnv's `PATH_add bin` — and an
 * agent that writes a `bwrap` there would run the next run's commands without a sandbox.
 */
export const SYSTEM_BIN_DIRS = ['/usr/bin', '/bin', '/usr/local/bin', '/usr/sbin'] as const;

/** Why an operator's setting was not used: there is nothing to run at that path. */
export const MISSING = 'missing or not executable';

/** What a trusted binary must stay clear of: the paths a node of this run may write. */
export interface TrustContext {
  /**
   * Absolute paths a node may write: every `fs_write` entry of the run's grant and the working
   * directory. `all` is not listed: a node that may write everything may write `/usr/bin` too,
   * which no check can see; the sandbox then mounts the anchors read-only (`anchorPaths`).
   */
  writable: readonly string[];
  /** The user arbor runs as: a binary owned by them (or by root) may be trusted. */
  uid?: number;
}

/** Where a binary was found and whether it may be trusted; `reason` says why not. */
export type BinaryTrust =
  | { trusted: true; path: string; origin: string }
  | { trusted: false; path?: string; origin?: string; reason: string };

/** The operator's explicit choice of a binary: an environment variable or a config key. */
export interface BinarySetting {
  /** How the operator named it, for messages: `ARBOR_BWRAP`, `security.bwrap`. */
  name: string;
  value: string | undefined;
}

/**
 * The operator's choice of a binary: the environment variable `envName` when set and not empty,
 * else the config key `configName` (possibly unset).
 */
export function operatorSetting(
  env: NodeJS.ProcessEnv,
  envName: string,
  configName: string,
  configured: string | undefined,
): BinarySetting {
  const fromEnv = env[envName];
  return fromEnv !== undefined && fromEnv !== ''
    ? { name: envName, value: fromEnv }
    : { name: configName, value: configured };
}

/**
 * Finds `name` in the fixed system directories, or takes the operator's setting, and checks it
 * can be trusted (see `trustProblem`). A setting is used alone: if it cannot be trusted, nothing
 * else is tried, so a typo never silently falls back to another binary.
 */
export function locateTrustedBinary(
  name: string,
  setting: BinarySetting,
  context: TrustContext,
): BinaryTrust {
  const chosen = setting.value?.trim();
  if (chosen !== undefined && chosen !== '') {
    const origin = `from ${setting.name}`;
    if (!path.isAbsolute(chosen))
      return {
        trusted: false,
        path: chosen,
        origin,
        reason: `${setting.name} must be an absolute path, got \`${chosen}\``,
      };
    if (!isExecutable(chosen)) return { trusted: false, path: chosen, origin, reason: MISSING };
    const problem = trustProblem(chosen, context);
    return problem === undefined
      ? { trusted: true, path: chosen, origin }
      : { trusted: false, path: chosen, origin, reason: problem };
  }
  let first: BinaryTrust | undefined;
  for (const dir of SYSTEM_BIN_DIRS) {
    const candidate = path.join(dir, name);
    if (!isExecutable(candidate)) continue;
    const origin = `from ${dir}`;
    const problem = trustProblem(candidate, context);
    if (problem === undefined) return { trusted: true, path: candidate, origin };
    first ??= { trusted: false, path: candidate, origin, reason: problem };
  }
  return (
    first ?? {
      trusted: false,
      reason: `\`${name}\` is not installed: not found in ${SYSTEM_BIN_DIRS.join(', ')}`,
    }
  );
}

/**
 * The first trusted `name` in the system directories, checked for ownership and modes only: for a
 * payload that names no `bwrap` (the supervisor names the one it checked against the grant).
 */
export function systemBinary(name: string): string | undefined {
  const found = locateTrustedBinary(name, { name: '', value: undefined }, { writable: [] });
  return found.trusted ? found.path : undefined;
}

/**
 * Why `file` cannot be trusted to run with arbor's rights, or `undefined` when it can: it must be
 * an executable regular file; it and every directory from it up to `/` (on the path as written
 * and on its real path, so a symlink on the way is judged by where it leads too) must be owned by
 * root or by the user arbor runs as, and writable by neither group nor others; and neither path
 * may lie inside a path a node of this run may write. Root ownership is not enough on its own: CI
 * runs as root, and a root-owned workspace is still a grant.
 */
export function trustProblem(file: string, context: TrustContext): string | undefined {
  const written = path.resolve(file);
  let real: string;
  try {
    real = realpathSync(written);
  } catch (error) {
    return `${written} cannot be read (${codeOf(error)})`;
  }
  const uid = context.uid ?? process.getuid?.() ?? 0;
  const where = real === written ? written : `${written} (${real})`;
  for (const root of context.writable) {
    const holds = [written, real].find((p) => isInside(path.resolve(root), p));
    if (holds !== undefined)
      return `${where} is inside ${root}, which an agent of this run may write`;
  }
  const stats = statOf(real);
  if (stats === undefined) return `${where} cannot be read`;
  if (!stats.isFile()) return `${where} is not a regular file`;
  if (!isExecutable(real)) return `${where} is not executable`;
  const own = ownership(real, stats, uid);
  if (own !== undefined) return own;
  for (const chain of [ancestors(written), ancestors(real)]) {
    for (const dir of chain) {
      const dirStats = statOf(dir);
      if (dirStats === undefined) return `${dir} (on the way to ${where}) cannot be read`;
      // A symlink's own mode means nothing; the directory holding it is checked in turn.
      if (dirStats.isSymbolicLink()) continue;
      const problem = ownership(dir, dirStats, uid);
      if (problem !== undefined) return `${problem}, on the way to ${where}`;
    }
  }
  return undefined;
}

function ownership(p: string, stats: Stats, uid: number): string | undefined {
  if (stats.uid !== 0 && stats.uid !== uid)
    return `${p} is owned by uid ${stats.uid}, neither root nor this user (uid ${uid})`;
  if ((stats.mode & 0o022) !== 0)
    return `${p} is writable by ${(stats.mode & 0o002) !== 0 ? 'anyone' : 'its group'} (mode ${(stats.mode & 0o7777).toString(8)})`;
  return undefined;
}

/** The directories holding `p`, from its parent up to `/`. */
function ancestors(p: string): string[] {
  const out: string[] = [];
  for (let dir = path.dirname(p); ; dir = path.dirname(dir)) {
    out.push(dir);
    if (dir === path.dirname(dir)) return out;
  }
}

function statOf(p: string): Stats | undefined {
  try {
    return lstatSync(p);
  } catch {
    return undefined;
  }
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function codeOf(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? String(error);
}
