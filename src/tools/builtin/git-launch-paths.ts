import type { Scope } from '../../protocol/index.js';
import { isInside, normalizePath } from '../../authority/index.js';
import { GIT_DIR_NAME, GIT_LAUNCHERS, SUBMODULES_DIR } from '../sandbox/git-launchers.js';

/**
 * Why a write to the absolute, normalized `target` could plant something git runs outside the
 * sandbox, or `undefined`. A sandboxed command cannot reach the user's next `git status`, but a
 * file written here does: git runs hooks, an fsmonitor or a filter from it, as the user. A `.git`
 * entry itself is refused too: a `.git` file names the git directory, so rewriting it retargets
 * the repository. Allowed only when `fs_write` names the git directory explicitly: an entry
 * inside (or equal to) that `.git` directory, which no broad grant (`.`, `all`) is.
 */
export function gitLaunchPath(target: string, scope: Scope, cwd: string): string | undefined {
  const parts = target.split('/');
  for (let at = 1; at < parts.length; at++) {
    if (parts[at] !== GIT_DIR_NAME) continue;
    const gitDir = parts.slice(0, at + 1).join('/');
    const what = launcherPart(parts.slice(at + 1));
    if (what === undefined || namesExplicitly(scope, gitDir, target, cwd)) continue;
    const how =
      'outside the sandbox, as the user. To allow it, name it in fs_write explicitly: an entry ' +
      `inside ${gitDir}, such as ${gitDir}/hooks`;
    return what === 'itself'
      ? 'is a `.git` entry itself, which says where the repository is (a `.git` file can ' +
          `retarget it); git runs what the repository holds (hooks, fsmonitor, filters) ${how}`
      : `is inside ${what} of the git directory ${gitDir}; git runs what is written there ` +
          `(hooks, fsmonitor, filters) ${how}`;
  }
  return undefined;
}

/**
 * Which launcher `rest` (the components under a `.git`) falls in, in words, or `itself` for the
 * `.git` entry; `undefined` for the rest of the git directory (objects, refs, HEAD…).
 */
function launcherPart(rest: readonly string[]): string | undefined {
  const [first] = rest;
  if (first === undefined) return 'itself';
  if (GIT_LAUNCHERS.has(first)) return `\`${first}\``;
  if (first !== SUBMODULES_DIR) return undefined;
  const nested = rest.slice(1).find((part) => GIT_LAUNCHERS.has(part));
  return nested === undefined ? undefined : `a submodule's \`${nested}\``;
}

/** Is there an `fs_write` entry inside `gitDir` that covers `target`? */
function namesExplicitly(scope: Scope, gitDir: string, target: string, cwd: string): boolean {
  if (scope === 'all') return false;
  return scope.some((entry) => {
    const named = normalizePath(entry, { cwd });
    return isInside(gitDir, named) && isInside(named, target);
  });
}
