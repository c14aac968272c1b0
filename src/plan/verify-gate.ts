import { type Caveats } from '../protocol/index.js';
import type { ProtectedPath, SandboxSettings } from '../protocol/index.js';
import { execEnv, prepareCommand, runCommand, sweepPlantedPointers } from '../tools/index.js';
import type { LeafOutcome } from './scheduler.js';
import { permitsExec } from '../authority/index.js';

export interface VerifyOptions {
  /** Where the command runs: the leaf's working directory (its worktree, with `--worktrees`). */
  cwd: string;
  /** The leaf's authority: the command runs only if its `exec` caveat permits it exactly. */
  caveats: Caveats;
  timeoutMs: number;
  env: Readonly<Record<string, string | undefined>>;
  /** How the command is contained: the same sandbox as the leaf's own `exec`. */
  sandbox: SandboxSettings;
  /** The run's own state, outside the leaf's grant. */
  protect: readonly ProtectedPath[];
  signal?: AbortSignal;
}

/** Bytes of the command's combined output kept for a failure's `result`. */
const TAIL_BYTES = 4_096;
const KILL_GRACE_MS = 2_000;

/**
 * A leaf's verify gate: runs `command` after the leaf, in its own process group, under the leaf's
 * `exec` caveat (exact match), in the sandbox the leaf's own commands get, and with a timeout. Passing returns undefined; otherwise the leaf's
 * failure, with why and the tail of the output.
 */
export async function runVerifyGate(
  command: string,
  options: VerifyOptions,
): Promise<LeafOutcome | undefined> {
  if (!permitsExec(options.caveats, command)) {
    return {
      status: 'failed',
      result: `verify refused: \`${command}\` is not permitted by the leaf's exec caveat (exact match)`,
    };
  }
  const prepared = prepareCommand({
    settings: options.sandbox,
    caveats: options.caveats,
    protect: options.protect,
    cwd: options.cwd,
    env: execEnv(options.env),
    // A verify command has no egress proxy of its own: only the operator's opt-out gives it the
    // host's network, for a leaf holding `all`.
    network:
      options.sandbox.network === 'host' && options.caveats.net === 'all'
        ? { kind: 'host' }
        : { kind: 'none' },
  });
  if (!prepared.ok) return { status: 'failed', result: `verify refused: ${prepared.message}` };
  let outcome;
  let swept: string[];
  try {
    outcome = await runCommand(command, {
      cwd: options.cwd,
      env: prepared.env,
      wrap: prepared.wrap,
      timeoutMs: options.timeoutMs,
      maxOutputBytes: TAIL_BYTES,
      killGraceMs: KILL_GRACE_MS,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
  } catch (error) {
    if (options.signal?.aborted === true)
      return { status: 'cancelled', result: 'verify cancelled' };
    const why = error instanceof Error ? error.message : String(error);
    return { status: 'failed', result: `verify \`${command}\` could not start: ${why}` };
  } finally {
    swept = sweepPlantedPointers(prepared.gitDirs, prepared.preparedAt);
  }
  // A check that plants a pointer in a git directory is hostile, whatever its exit code.
  if (swept.length > 0)
    return { status: 'failed', result: `verify \`${command}\`: ${swept.join('; ')}` };
  if (outcome.stopped?.why === 'cancelled')
    return { status: 'cancelled', result: 'verify cancelled' };
  if (outcome.exitCode === 0 && outcome.stopped === undefined) return undefined;
  const why =
    outcome.stopped?.why === 'timeout'
      ? `timed out after ${options.timeoutMs} ms`
      : outcome.exitCode === null
        ? `was killed by ${outcome.signal ?? 'a signal'}`
        : `exited ${outcome.exitCode}`;
  const tail = outcome.output.replace(/\n$/, '');
  return {
    status: 'failed',
    result: `verify \`${command}\` ${why}${tail === '' ? ' (no output)' : `; output tail:\n${tail}`}`,
  };
}
