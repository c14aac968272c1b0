import path from 'node:path';

/** Directories git treats as its own: any directory (or file) named so. */
export const GIT_DIR_NAME = '.git';

/** Where a repository keeps its submodules' git directories, nested at any depth. */
export const SUBMODULES_DIR = 'modules';

/**
 * What, inside a git directory, git reads as instructions to run something, and what each is:
 * `config` (`core.fsmonitor`, `core.hooksPath`, filters, aliases) and its per-worktree companion
 * `config.worktree`, `hooks/`, `info/` (attributes there select filters), `commondir` and `gitdir`
 * (which point the repository at another git directory, whose config then runs) and `worktrees/`
 * (each entry a git directory of its own). Under `modules/` the same names count again. One list
 * for the file tools (which refuse writes there) and the sandbox (which mounts them read-only).
 */
export const GIT_LAUNCHERS: ReadonlyMap<string, 'file' | 'dir'> = new Map([
  ['config', 'file'],
  ['config.worktree', 'file'],
  ['commondir', 'file'],
  ['gitdir', 'file'],
  ['hooks', 'dir'],
  ['info', 'dir'],
  ['worktrees', 'dir'],
]);

/** The git directory a `.git` file names (`gitdir: <path>`), resolved against its directory. */
export function gitDirPointer(text: string | undefined, base: string): string | undefined {
  const match = /^gitdir:\s*(.+?)\s*$/m.exec(text ?? '');
  return match?.[1] === undefined ? undefined : path.resolve(base, match[1]);
}

/**
 * The outermost git directory holding the git directory `dir`: its first `.git` component (as
 * the file tools count it), or `dir` itself for one named otherwise (`--separate-git-dir`).
 */
export function outermostGitDir(dir: string): string {
  const parts = dir.split('/');
  const at = parts.indexOf(GIT_DIR_NAME);
  return at === -1 ? dir : parts.slice(0, at + 1).join('/');
}
