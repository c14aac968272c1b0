import { execFile } from 'node:child_process';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { ArborError } from '../protocol/index.js';
import { execEnv } from '../tools/builtin/exec-env.js';
import type { ArtifactRef } from './subtask.js';

const run = promisify(execFile);

/** Commits are made as arbor unless the repository says otherwise. */
const IDENTITY = ['-c', 'user.name=arbor', '-c', 'user.email=arbor@localhost'];

/** A merge that did not go through: which leaf, and the files in conflict. */
export interface MergeConflict {
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
 * and that leaf's merge undone, never resolved silently.
 */
export class PlanWorktrees {
  readonly repo: string;
  readonly base: string;
  readonly #root: string;
  readonly #prefix: string;
  /** Worktree creation touches the shared repository: one at a time. */
  #lock: Promise<unknown> = Promise.resolve();

  private constructor(repo: string, base: string, root: string, prefix: string) {
    this.repo = repo;
    this.base = base;
    this.#root = root;
    this.#prefix = prefix;
  }

  /** Opens worktrees for run `runId` of the repository holding `cwd`, based on its `HEAD`. */
  static async open(cwd: string, runId: string): Promise<PlanWorktrees> {
    let repo: string;
    let base: string;
    let gitDir: string;
    try {
      repo = (await git(cwd, 'rev-parse', '--show-toplevel')).trim();
      base = (await git(repo, 'rev-parse', 'HEAD')).trim();
      gitDir = path.resolve(repo, (await git(repo, 'rev-parse', '--git-common-dir')).trim());
    } catch (error) {
      throw new ArborError(
        'usage',
        `--worktrees needs a git repository with at least one commit at ${cwd}: ${describe(error)}`,
      );
    }
    const root = path.join(gitDir, 'arbor', 'worktrees', runId);
    await mkdir(root, { recursive: true });
    return new PlanWorktrees(repo, base, root, `arbor/${refSafe(runId)}`);
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
    await git(this.repo, 'worktree', 'add', '--force', '-B', this.branchOf(leafId), dir, first);
    for (const commit of rest) {
      const conflict = await mergeInto(dir, commit, `arbor: merge ${commit} for ${leafId}`);
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
    await git(dir, 'add', '-A');
    await git(
      dir,
      ...IDENTITY,
      'commit',
      '--allow-empty',
      '--no-verify',
      '-q',
      '-m',
      `arbor: ${leafId}`,
    );
    const commit = (await git(dir, 'rev-parse', 'HEAD')).trim();
    return { branch: this.branchOf(leafId), commit };
  }

  /** Merges the leaves' commits, in the order given, into the run's `merged` branch. */
  async mergeAll(leaves: readonly { id: string; commit: string }[]): Promise<MergeReport> {
    const branch = `${this.#prefix}/merged`;
    const dir = path.join(this.#root, '_merged');
    await this.#remove(dir);
    await git(this.repo, 'worktree', 'add', '--force', '-B', branch, dir, this.base);
    const merged: string[] = [];
    const conflicts: MergeConflict[] = [];
    for (const leaf of leaves) {
      const files = await mergeInto(dir, leaf.commit, `arbor: merge ${leaf.id}`);
      if (files === undefined) merged.push(leaf.id);
      else conflicts.push({ leaf: leaf.id, commit: leaf.commit, files });
    }
    const commit = (await git(dir, 'rev-parse', 'HEAD')).trim();
    return { branch, commit, merged, conflicts };
  }

  /** Removes every worktree of the run; the branches (and so the commits) stay. */
  async close(): Promise<void> {
    await rm(this.#root, { recursive: true, force: true });
    await git(this.repo, 'worktree', 'prune').catch(() => '');
  }

  async #remove(dir: string): Promise<void> {
    await git(this.repo, 'worktree', 'remove', '--force', dir).catch(() => '');
    await rm(dir, { recursive: true, force: true });
    await git(this.repo, 'worktree', 'prune');
  }
}

/** Merges `commit` into the worktree at `dir`; undefined when it went through, else the files. */
async function mergeInto(
  dir: string,
  commit: string,
  message: string,
): Promise<string[] | undefined> {
  try {
    await git(dir, ...IDENTITY, 'merge', '--no-ff', '--no-edit', '-m', message, commit);
    return undefined;
  } catch (error) {
    const files = (await git(dir, 'diff', '--name-only', '--diff-filter=U').catch(() => ''))
      .split('\n')
      .filter((line) => line !== '');
    await git(dir, 'merge', '--abort').catch(() => '');
    if (files.length === 0) throw error;
    return files;
  }
}

/**
 * Settings on every git call arbor makes: no hooks (a leaf that wrote `.git/hooks/post-commit`
 * or `post-checkout` must not get arbor to run it), no fsmonitor (`core.fsmonitor` names a
 * command too), no system config.
 */
const HARDENED = ['-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false'];

/**
 * Runs git for arbor itself: hardened as above, with only the allow-listed environment (no
 * tokens, no `SSH_AUTH_SOCK`, no askpass helper), never prompting.
 */
async function git(cwd: string, ...args: string[]): Promise<string> {
  const { stdout } = await run('git', [...HARDENED, ...args], {
    cwd,
    maxBuffer: 16 * 1024 * 1024,
    env: {
      ...execEnv(process.env),
      GIT_TERMINAL_PROMPT: '0',
      GIT_CONFIG_NOSYSTEM: '1',
      LC_ALL: 'C',
    },
  });
  return stdout;
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
