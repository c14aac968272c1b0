import { lstatSync, readdirSync, readFileSync, renameSync, type Stats } from 'node:fs';
import path from 'node:path';
import { GIT_DIR_NAME } from './git-launchers.js';
import { gitlinksOf } from './git-index.js';

/** What a repository's git directory holds that git runs or obeys: changed, it is a launcher. */
const LAUNCH_ENTRIES = ['config', 'config.worktree', 'commondir', 'hooks', 'info'];

/**
 * Disables a repository nested in a guarded one that a sandboxed command made into a launcher:
 * for each gitlink in the index of each git directory in `gitDirs` (what `git status` and
 * `git diff` go into, running that repository's configuration as the user), a `.git` there whose
 * configuration, hooks or pointers changed since `since` (ms; the command's start) is renamed to
 * `.git.disabled-by-arbor`, so git sees a plain directory. One line per repository disabled.
 * A nested repository's `.git` did not exist, or was not guarded, when the sandbox was planned, so
 * no mount could keep it read-only (the guard covers the repository holding the working directory
 * and those at or one level below a writable root). Judged by change times, which a process
 * cannot set.
 */
export function sweepNestedRepos(gitDirs: readonly string[], since: number): string[] {
  const out: string[] = [];
  for (const gitDir of gitDirs) {
    const tree = workTreeOf(gitDir);
    if (tree === undefined) continue;
    for (const link of gitlinksOf(gitDir)) {
      const dotGit = path.join(tree, link, GIT_DIR_NAME);
      if (!changedSince(dotGit, since)) continue;
      out.push(disable(dotGit));
    }
  }
  return out;
}

/** The work tree of a git directory: `.git`'s parent, or a linked worktree's (its `gitdir`). */
function workTreeOf(gitDir: string): string | undefined {
  if (path.basename(gitDir) === GIT_DIR_NAME) return path.dirname(gitDir);
  try {
    const pointer = readFileSync(path.join(gitDir, 'gitdir'), 'utf8').trim();
    return path.isAbsolute(pointer) ? path.dirname(pointer) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether the `.git` at `dotGit` (a directory, a `gitdir:` file or a link) or what git takes from
 * the git directory it names changed since `since`.
 */
function changedSince(dotGit: string, since: number): boolean {
  const stats = lstatOf(dotGit);
  if (stats === undefined) return false;
  if (stats.ctimeMs >= since) return true;
  if (stats.isSymbolicLink()) return false;
  let gitDir = dotGit;
  if (stats.isFile()) {
    const named = /^gitdir:\s*(.+?)\s*$/m.exec(readText(dotGit) ?? '')?.[1];
    if (named === undefined) return false;
    gitDir = path.resolve(path.dirname(dotGit), named);
    const target = lstatOf(gitDir);
    if (target === undefined) return false;
    if (target.ctimeMs >= since) return true;
  }
  for (const name of LAUNCH_ENTRIES) {
    const entry = path.join(gitDir, name);
    const entryStats = lstatOf(entry);
    if (entryStats === undefined) continue;
    if (entryStats.ctimeMs >= since) return true;
    if (!entryStats.isDirectory()) continue;
    for (const child of listing(entry)) {
      if ((lstatOf(path.join(entry, child))?.ctimeMs ?? 0) >= since) return true;
    }
  }
  return false;
}

function disable(dotGit: string): string {
  const why =
    'a repository in the index whose configuration, hooks or pointers the command changed: ' +
    'git would run them outside the sandbox on the next `git status`';
  for (let n = 0; n < 100; n += 1) {
    const aside = `${dotGit}.disabled-by-arbor${n === 0 ? '' : `-${n}`}`;
    if (lstatOf(aside) !== undefined) continue;
    try {
      renameSync(dotGit, aside);
      return `moved ${dotGit} to ${aside}: ${why}`;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? String(error);
      return `could not move ${dotGit} aside (${code}), ${why}: do not run git in ${path.dirname(path.dirname(dotGit))} before removing it`;
    }
  }
  return `could not move ${dotGit} aside, ${why}: do not run git there before removing it`;
}

function lstatOf(p: string): Stats | undefined {
  try {
    return lstatSync(p);
  } catch {
    return undefined;
  }
}

function readText(p: string): string | undefined {
  try {
    return readFileSync(p, 'utf8');
  } catch {
    return undefined;
  }
}

function listing(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
