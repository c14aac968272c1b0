import path from 'node:path';
import { isInside } from '../../authority/index.js';
import type { ProtectedPath, Scope } from '../../protocol/index.js';
import type { FsView } from './fs-view.js';
import {
  GIT_DIR_NAME,
  GIT_LAUNCHERS,
  SUBMODULES_DIR,
  gitDirPointer,
  outermostGitDir,
} from './git-launchers.js';

/** What the sandbox must take away so no git directory it can write becomes a launcher. */
export interface GitGuard {
  /** Launch paths kept read-only (pinned where they are, made empty first when missing). */
  protect: ProtectedPath[];
  /** `fs_write` entries inside a launch path: bound writable again over it, as the grant says. */
  reopen: string[];
  /**
   * Git directories, writable, with no `commondir` when the command starts: one found there
   * afterwards was planted (a mount cannot cover a file that does not exist yet).
   */
  gitDirs: string[];
  /** Launch paths that are symlinks in a writable directory: replaceable, so not protectable. */
  unprotectable: string[];
}

export interface GitGuardSpec {
  /** The real paths of the sandbox's writable binds (none under `fs_write = "all"`). */
  roots: readonly string[];
  /** The command's real working directory: the repository holding it is looked for upwards. */
  cwd: string;
  /** The node's `fs_write`: an entry inside a git directory names that part explicitly. */
  fsWrite: Scope;
}

/**
 * Launch paths `git init` makes: where one is missing it is made empty before the command starts,
 * so the command cannot create it. The others count only where they exist.
 */
const MADE_BY_INIT = new Set(['config', 'hooks', 'info']);

/** How deep under `modules/` submodules' git directories are looked for (names hold `/`). */
const MAX_MODULE_DEPTH = 4;

/**
 * The git launch paths (see `GIT_LAUNCHERS`) of every repository whose `.git` a sandboxed
 * command could write: the one holding the working directory, and those at each writable root
 * and one level below it — not deeper, which would mean crawling the tree. For a `.git`
 * directory: `config`, `config.worktree`, `hooks/`, `info/`, an existing `commondir`, each entry
 * of `worktrees/` (only the pointers of the working directory's own linked worktree, which its
 * commands must be able to commit in) and the same in each submodule's git directory under
 * `modules/`; the `.git` directory is pinned by the protection (a mount point cannot be renamed).
 * For a `.git` file: the file itself, and the git directory it names. A part the node's
 * `fs_write` names explicitly (an entry inside that git directory) is left as the grant says.
 * `isWritable` says whether a command may change the entries of a directory.
 */
export function guardGitDirs(
  spec: GitGuardSpec,
  fs: FsView,
  isWritable: (p: string) => boolean,
): GitGuard {
  const named = spec.fsWrite === 'all' ? [] : spec.fsWrite.map((e) => path.resolve(spec.cwd, e));
  const planner = new GitGuardPlanner(fs, isWritable, named);
  for (const entry of candidates(spec, fs)) planner.gitEntry(entry);
  return planner.guard;
}

/**
 * The `.git` entries to look at: above the working directory, and at and under each root. The
 * working directory's comes first, so its own linked worktree is known when the common git
 * directory is reached.
 */
function candidates(spec: GitGuardSpec, fs: FsView): string[] {
  const out = new Set<string>();
  const enclosing = (dir: string): void => {
    for (let at = dir; ; at = path.dirname(at)) {
      const entry = path.join(at, GIT_DIR_NAME);
      if (fs.kind(entry) !== 'missing') {
        out.add(entry);
        return;
      }
      if (at === path.dirname(at)) return;
    }
  };
  enclosing(spec.cwd);
  for (const root of spec.roots) {
    enclosing(root);
    for (const child of fs.subdirs(root)) out.add(path.join(root, child, GIT_DIR_NAME));
  }
  return [...out].filter((entry) => fs.kind(entry) !== 'missing');
}

class GitGuardPlanner {
  readonly guard: GitGuard = { protect: [], reopen: [], gitDirs: [], unprotectable: [] };
  readonly #fs: FsView;
  readonly #isWritable: (p: string) => boolean;
  readonly #named: readonly string[];
  readonly #seen = new Set<string>();

  constructor(fs: FsView, isWritable: (p: string) => boolean, named: readonly string[]) {
    this.#fs = fs;
    this.#isWritable = isWritable;
    this.#named = named;
  }

  /** A `.git` entry of a working tree: a directory, or a file naming the git directory. */
  gitEntry(entry: string): void {
    const kind = this.#fs.kind(entry);
    if (kind === 'symlink') {
      if (this.#isWritable(path.dirname(entry))) this.guard.unprotectable.push(entry);
      return;
    }
    if (kind === 'dir') {
      this.#gitDir(entry, { own: undefined, root: outermostGitDir(entry), depth: 0 });
      return;
    }
    if (kind !== 'file') return;
    this.#keep(entry, 'file', entry);
    const target = gitDirPointer(this.#fs.readText(entry), path.dirname(entry));
    if (target === undefined) return;
    const dir = this.#fs.real(target);
    if (this.#fs.kind(dir) !== 'dir') return;
    if (this.#fs.kind(path.join(dir, 'commondir')) === 'file') this.#linkedWorktree(dir);
    else this.#gitDir(dir, { own: undefined, root: outermostGitDir(dir), depth: 0 });
  }

  /**
   * A repository's (or a submodule's) git directory. `own` is the git directory of the working
   * directory's linked worktree, left writable but for its pointers; `root` is the outermost git
   * directory, inside which an `fs_write` entry names a part explicitly.
   */
  #gitDir(dir: string, at: { own: string | undefined; root: string; depth: number }): void {
    if (this.#seen.has(dir)) return;
    this.#seen.add(dir);
    for (const [name, kind] of GIT_LAUNCHERS) {
      const p = path.join(dir, name);
      const present = this.#fs.kind(p) !== 'missing';
      switch (name) {
        case 'worktrees':
          for (const entry of this.#fs.subdirs(p))
            if (path.join(p, entry) !== at.own) this.#keep(path.join(p, entry), 'dir', at.root);
          break;
        case 'commondir':
          if (present) this.#keep(p, kind, at.root);
          else if (this.#isWritable(dir)) this.guard.gitDirs.push(dir);
          break;
        case 'config.worktree':
          if (present || this.#worktreeConfig(dir)) this.#keep(p, kind, at.root);
          break;
        default:
          if (present || MADE_BY_INIT.has(name)) this.#keep(p, kind, at.root);
      }
    }
    this.#submodules(path.join(dir, SUBMODULES_DIR), at.root, at.depth);
  }

  /** Submodules' git directories under `under`: each holds a `HEAD`; names may hold `/`. */
  #submodules(under: string, root: string, depth: number): void {
    if (depth >= MAX_MODULE_DEPTH) return;
    for (const name of this.#fs.subdirs(under)) {
      const dir = path.join(under, name);
      if (this.#fs.kind(path.join(dir, 'HEAD')) === 'file')
        this.#gitDir(dir, { own: undefined, root, depth: depth + 1 });
      else this.#submodules(dir, root, depth + 1);
    }
  }

  /** A linked worktree's git directory: its pointers, then the common directory it names. */
  #linkedWorktree(dir: string): void {
    const part = (name: string): string => path.join(dir, name);
    const common = this.#fs.real(
      path.resolve(dir, (this.#fs.readText(part('commondir')) ?? '').trim()),
    );
    const root = outermostGitDir(this.#fs.kind(common) === 'dir' ? common : dir);
    this.#keep(part('commondir'), 'file', root);
    if (this.#fs.kind(part('gitdir')) !== 'missing') this.#keep(part('gitdir'), 'file', root);
    if (this.#fs.kind(part('config.worktree')) !== 'missing' || this.#worktreeConfig(common))
      this.#keep(part('config.worktree'), 'file', root);
    if (this.#fs.kind(common) === 'dir') this.#gitDir(common, { own: dir, root, depth: 0 });
  }

  /** Does the config of `dir` turn on `extensions.worktreeConfig` (then `config.worktree` runs)? */
  #worktreeConfig(dir: string): boolean {
    return /worktreeconfig/i.test(this.#fs.readText(path.join(dir, 'config')) ?? '');
  }

  /**
   * Keeps the launch path `p` read-only, unless an `fs_write` entry inside the git directory
   * `root` holds it; such an entry inside `p` is bound writable again over it. A missing one is
   * made empty before the command starts (see `planMounts`), so it cannot be created.
   */
  #keep(p: string, kind: 'file' | 'dir', root: string): void {
    const named = this.#named.filter((entry) => isInside(root, entry));
    if (named.some((entry) => isInside(entry, p))) return;
    if (this.#fs.kind(p) === 'symlink') {
      if (this.#isWritable(path.dirname(p))) this.guard.unprotectable.push(p);
      return;
    }
    this.guard.protect.push({ path: p, kind, readable: true });
    for (const entry of named)
      if (isInside(p, entry) && this.#fs.kind(entry) !== 'missing') this.guard.reopen.push(entry);
  }
}
