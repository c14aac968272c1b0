import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { canonicalPath } from '../authority/index.js';
import { ArborError } from '../protocol/index.js';
import { gitDirPointer, nodeFsView, outermostGitDir } from '../tools/index.js';
import type { GitReach, RepoGit } from './repo-git.js';
import type { ArtifactRef } from './subtask.js';

/** arbor's commits and merges are made as arbor, whatever the repository's config says. */
const IDENTITY = ['-c', 'user.name=arbor', '-c', 'user.email=arbor@localhost'];

/** A merge that did not go through: which leaf, and the files in conflict. */
interface MergeConflict {
  leaf: string;
  commit: string;
  files: string[];
}

export interface MergeReport {
  /** The branch holding the merge of every done leaf, based on the run's starting commit. */
  branch: string;
  commit: string;
  merged: string[];
  conflicts: MergeConflict[];
}

/**
 * Git worktrees for a plan run (`--worktrees`): each leaf works in its own worktree and branch,
 * `arbor/<run>/<leaf>`, based on its deps' commits (the first dep's commit, with the others merged
 * in), so a leaf sees exactly the work it depends on. Worktrees live under the repository's git
 * directory (`.git/arbor/worktrees/`), where they never show in the user's `git status`. At the end
 * every done leaf is merged, in document order, into `arbor/<run>/merged`; a conflict is recorded
 * and that leaf's merge undone, never resolved silently. Every git call runs through `RepoGit`
 * (sandboxed), reaching the repository read-only but for the parts of its git directory these
 * operations write: `objects`, `refs`, `logs`, `worktrees` and arbor's own `arbor/`.
 */
export class PlanWorktrees {
  readonly repo: string;
  readonly base: string;
  readonly #root: string;
  readonly #prefix: string;
  readonly #git: RepoGit;
  readonly #reach: GitReach;
  /** Worktree creation touches the shared repository: one at a time. */
  #lock: Promise<unknown> = Promise.resolve();

  private constructor(
    at: { repo: string; base: string; root: string; prefix: string },
    git: RepoGit,
    reach: GitReach,
  ) {
    this.repo = at.repo;
    this.base = at.base;
    this.#root = at.root;
    this.#prefix = at.prefix;
    this.#git = git;
    this.#reach = reach;
  }

  /** Opens worktrees for run `runId` of the repository holding `cwd`, based on its `HEAD`. */
  static async open(cwd: string, runId: string, git: RepoGit): Promise<PlanWorktrees> {
    let repo: string;
    let base: string;
    let gitDir: string;
    try {
      const read = { read: enclosingRepo(cwd), write: [] };
      const revParse = (...args: string[]): Promise<string> =>
        git.run(cwd, ['rev-parse', ...args], read).then((out) => out.trim());
      repo = canonicalPath(await revParse('--show-toplevel'));
      base = await revParse('HEAD');
      gitDir = canonicalPath(path.resolve(cwd, await revParse('--git-common-dir')));
    } catch (error) {
      throw new ArborError(
        'usage',
        `--worktrees needs a git repository with at least one commit at ${cwd}: ${describe(error)}`,
      );
    }
    const root = path.join(gitDir, 'arbor', 'worktrees', runId);
    await mkdir(root, { recursive: true });
    // What the calls write must exist before each is sandboxed (a mount needs its directory).
    for (const dir of WRITTEN) await mkdir(path.join(gitDir, dir), { recursive: true });
    const reach = { read: [repo, gitDir], write: WRITTEN.map((dir) => path.join(gitDir, dir)) };
    return new PlanWorktrees({ repo, base, root, prefix: `arbor/${refSafe(runId)}` }, git, reach);
  }

  branchOf(leafId: string): string {
    return `${this.#prefix}/${refSafe(leafId)}`;
  }

  /**
   * Makes a fresh worktree for a leaf on its branch, based on `bases` (its deps' commits; the
   * run's base when it has none). A leaf run again after a crash starts over from its bases. A
   * conflict merging the bases is an error naming the commit and the files.
   */
  prepare(leafId: string, bases: readonly string[]): Promise<string> {
    const next = this.#lock.then(() => this.#prepare(leafId, bases));
    this.#lock = next.catch(() => undefined);
    return next;
  }

  async #prepare(leafId: string, bases: readonly string[]): Promise<string> {
    const dir = path.join(this.#root, refSafe(leafId));
    await this.#remove(dir);
    const [first = this.base, ...rest] = bases;
    await this.#run(
      this.repo,
      'worktree',
      'add',
      '--force',
      '-B',
      this.branchOf(leafId),
      dir,
      first,
    );
    for (const commit of rest) {
      const conflict = await this.#mergeInto(dir, commit, `arbor: merge ${commit} for ${leafId}`);
      if (conflict !== undefined) {
        throw new Error(
          `merging the deps' commits for \`${leafId}\` conflicted at ${commit.slice(0, 12)} in ${conflict.join(', ')}`,
        );
      }
    }
    return dir;
  }

  /** Commits everything the leaf changed in its worktree (an empty commit when nothing changed). */
  async commit(leafId: string, dir: string): Promise<ArtifactRef> {
    await this.#run(dir, 'add', '-A');
    await this.#run(
      dir,
      ...IDENTITY,
      'commit',
      '--allow-empty',
      '--no-verify',
      '-q',
      '-m',
      `arbor: ${leafId}`,
    );
    const commit = (await this.#run(dir, 'rev-parse', 'HEAD')).trim();
    return { branch: this.branchOf(leafId), commit };
  }

  /** Merges the leaves' commits, in the order given, into the run's `merged` branch. */
  async mergeAll(leaves: readonly { id: string; commit: string }[]): Promise<MergeReport> {
    const branch = `${this.#prefix}/merged`;
    const dir = path.join(this.#root, '_merged');
    await this.#remove(dir);
    await this.#run(this.repo, 'worktree', 'add', '--force', '-B', branch, dir, this.base);
    const merged: string[] = [];
    const conflicts: MergeConflict[] = [];
    for (const leaf of leaves) {
      const files = await this.#mergeInto(dir, leaf.commit, `arbor: merge ${leaf.id}`);
      if (files === undefined) merged.push(leaf.id);
      else conflicts.push({ leaf: leaf.id, commit: leaf.commit, files });
    }
    const commit = (await this.#run(dir, 'rev-parse', 'HEAD')).trim();
    return { branch, commit, merged, conflicts };
  }

  /** Removes every worktree of the run; the branches (and so the commits) stay. */
  async close(): Promise<void> {
    await rm(this.#root, { recursive: true, force: true });
    await this.#run(this.repo, 'worktree', 'prune').catch(() => '');
  }

  async #remove(dir: string): Promise<void> {
    await this.#run(this.repo, 'worktree', 'remove', '--force', dir).catch(() => '');
    await rm(dir, { recursive: true, force: true });
    await this.#run(this.repo, 'worktree', 'prune');
  }

  /** Merges `commit` into the worktree at `dir`; undefined when it went through, else the files. */
  async #mergeInto(dir: string, commit: string, message: string): Promise<string[] | undefined> {
    try {
      await this.#run(dir, ...IDENTITY, 'merge', '--no-ff', '--no-edit', '-m', message, commit);
      return undefined;
    } catch (error) {
      const files = (await this.#run(dir, 'diff', '--name-only', '--diff-filter=U').catch(() => ''))
        .split('\n')
        .filter((line) => line !== '');
      await this.#run(dir, 'merge', '--abort').catch(() => '');
      if (files.length === 0) throw error;
      return files;
    }
  }

  #run(cwd: string, ...args: string[]): Promise<string> {
    return this.#git.run(cwd, args, this.#reach);
  }
}

/** The parts of the git directory arbor's worktree operations write; the rest stays read-only. */
const WRITTEN = ['objects', 'refs', 'logs', 'worktrees', 'arbor'];

/**
 * What finding the repository holding `cwd` reads: the nearest directory up from it with a `.git`,
 * and where a `.git` file (a linked worktree, a submodule) points, its outermost git directory.
 * Nothing found: `cwd` alone, and git says it is not a repository.
 */
function enclosingRepo(cwd: string): string[] {
  for (let dir = canonicalPath(cwd); ; dir = path.dirname(dir)) {
    const entry = path.join(dir, '.git');
    const kind = nodeFsView.kind(entry);
    if (kind === 'dir') return [dir];
    if (kind === 'file') {
      const target = gitDirPointer(nodeFsView.readText(entry), dir);
      return target === undefined ? [dir] : [dir, outermostGitDir(canonicalPath(target))];
    }
    if (dir === path.dirname(dir)) return [canonicalPath(cwd)];
  }
}

/** A leaf id as a ref and directory name component: anything unusual becomes `-`. */
function refSafe(id: string): string {
  const safe = id.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[.-]+|\.+$|\.lock$/g, '');
  return safe === '' ? 'leaf' : safe;
}

function describe(error: unknown): string {
  const stderr = (error as { stderr?: unknown }).stderr;
  if (typeof stderr === 'string' && stderr.trim() !== '') return stderr.trim();
  return error instanceof Error ? error.message : String(error);
}
