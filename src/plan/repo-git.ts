import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import type { ProtectedPath, SandboxSettings } from '../protocol/index.js';
import { execEnv, prepareCommand, sweepPlantedPointers } from '../tools/index.js';

const run = promisify(execFile);

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
    const common = { cwd, maxBuffer: MAX_BUFFER, encoding: 'utf8' as const };
    const signal = options.signal === undefined ? {} : { signal: options.signal };
    if (sandbox.mode === 'off') {
      const { stdout } = await run(git, argv, { ...common, ...signal, env: hostEnv() });
      return stdout;
    }
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
    const outcome = await run(file, argsOf, { ...common, ...signal, env: prepared.env }).then(
      ({ stdout }) => ({ ok: true as const, stdout }),
      (error: unknown) => ({ ok: false as const, error }),
    );
    const swept = sweepPlantedPointers(prepared.gitDirs);
    if (swept.length > 0) throw new Error(`git ${args.join(' ')}: ${swept.join('; ')}`);
    if (!outcome.ok) throw outcome.error;
    return outcome.stdout;
  }
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
