import path from 'node:path';
import type { ProtectedPath, SandboxSettings } from '../protocol/index.js';
import {
  execEnv,
  prepareCommand,
  runFile,
  sweepPlantedPointers,
  type FileRun,
} from '../tools/index.js';

export interface RepoGitOptions {
  /** git's absolute path, found and checked by `locateTrustedBinary`: never a `PATH` lookup. */
  git: string;
  /**
   * The run's sandbox: under `bwrap` every call runs in one; under `off` (the operator's choice)
   * git runs directly. `unavailable` is refused before a `RepoGit` is made.
   */
  sandbox: SandboxSettings;
  /** The run's own state: hidden from git's sandbox as from any command's. */
  protect: readonly ProtectedPath[];
}

/** What one git call may reach: what it reads, and what it writes (absolute paths). */
export interface GitReach {
  read: readonly string[];
  write: readonly string[];
}

/** Bytes of git's output kept: a diff's file list, a commit id. */
const MAX_BUFFER = 16 * 1024 * 1024;

/**
 * Settings on every git call arbor makes, in depth behind the sandbox: no hooks (a leaf that
 * wrote `.git/hooks/post-commit` must not get arbor to run it), no fsmonitor (`core.fsmonitor`
 * names a command too), no automatic gc or maintenance (they would write where the call has no
 * need to). Filters cannot be switched off by a flag (git 2.39): the sandbox is what contains them.
 */
const HARDENED = [
  '-c',
  'core.hooksPath=/dev/null',
  '-c',
  'core.fsmonitor=false',
  '-c',
  'gc.auto=0',
  '-c',
  'maintenance.auto=false',
];

/**
 * git for arbor itself, on a repository the run's nodes could have written (a leaf's worktree, the
 * user's repository): each call runs in a bubblewrap sandbox of its own — no network, its own
 * `/proc`, a private empty `HOME`, only `reach` of the host (the rest of the run's state hidden as
 * for any command, and the repository's launch paths read-only as `guardGitDirs` keeps them) and
 * an environment of only what git needs — so a filter or a config a node planted runs, if at all,
 * where it can neither see the API key nor write outside the repository.
 */
export class RepoGit {
  readonly #options: RepoGitOptions;

  constructor(options: RepoGitOptions) {
    this.#options = options;
  }

  /** Runs `git args…` in `cwd`, reaching only `reach`; its stdout. Rejects on a non-zero exit. */
  async run(
    cwd: string,
    args: readonly string[],
    reach: GitReach,
    options: { signal?: AbortSignal } = {},
  ): Promise<string> {
    const { git, sandbox } = this.#options;
    const argv = [...HARDENED, ...args];
    const common = {
      cwd,
      maxOutputBytes: MAX_BUFFER,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    };
    if (sandbox.mode === 'off')
      return outputOf(args, await runFile(git, argv, { ...common, env: hostEnv() }));
    const prepared = prepareCommand({
      settings: sandbox,
      caveats: { fs_read: [...reach.read], fs_write: [...reach.write], net: [] },
      protect: this.#options.protect,
      cwd,
      env: sandboxEnv(git),
    });
    if (!prepared.ok) throw new Error(`git cannot run in its sandbox: ${prepared.message}`);
    const [file, ...wrap] = prepared.wrap ?? [git];
    if (file === undefined) throw new Error('git cannot run in its sandbox: nothing to run');
    const argsOf = prepared.wrap === undefined ? argv : [...wrap, git, ...argv];
    const outcome = await runFile(file, argsOf, { ...common, env: prepared.env });
    const swept = sweepPlantedPointers(prepared.gitDirs, prepared.preparedAt);
    if (swept.length > 0) throw new Error(`git ${args.join(' ')}: ${swept.join('; ')}`);
    return outputOf(args, outcome);
  }
}

/**
 * git's stdout when it succeeded; otherwise an error carrying its `stderr`, as `execFile`'s does
 * (callers show it). git runs through `runFile`, so no descriptor arbor inherited reaches it.
 */
function outputOf(args: readonly string[], run: FileRun): string {
  if (run.code === 0 && run.error === undefined) return run.stdout;
  const how =
    run.error?.message ?? (run.code === null ? `signal ${run.signal ?? '?'}` : `exit ${run.code}`);
  throw Object.assign(new Error(`git ${args.join(' ')} failed (${how})`), { stderr: run.stderr });
}

/** Inside the sandbox: git's own directory first, the system's, and no config but the repo's. */
function sandboxEnv(git: string): Record<string, string> {
  const dirs = [...new Set([path.dirname(git), '/usr/bin', '/bin'])];
  return {
    PATH: dirs.join(':'),
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    LC_ALL: 'C',
  };
}

/** Without a sandbox (`--sandbox off`): the allow-listed environment, never prompting. */
function hostEnv(): Record<string, string> {
  return {
    ...execEnv(process.env),
    GIT_TERMINAL_PROMPT: '0',
    GIT_CONFIG_NOSYSTEM: '1',
    LC_ALL: 'C',
  };
}
