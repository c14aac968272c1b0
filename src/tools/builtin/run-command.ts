import { withSealedStdio } from '../sandbox/inherited-fds.js';
import { OutputTail } from './output-tail.js';

export interface RunCommandOptions {
  cwd: string;
  /**
   * What the shell is started under: `bwrap … --` from `prepareCommand`, so `sh -c command` runs
   * in the sandbox. Absent: the shell runs directly.
   */
  wrap?: readonly string[] | undefined;
  env: Readonly<Record<string, string>>;
  timeoutMs: number;
  /** Bytes of combined stdout and stderr kept: the tail. */
  maxOutputBytes: number;
  /** Between SIGTERM and SIGKILL when the command is stopped, in milliseconds. */
  killGraceMs: number;
  signal?: AbortSignal;
}

/** How a command was stopped before it finished on its own. */
interface CommandStop {
  why: 'timeout' | 'cancelled';
  /** SIGKILL was needed: the group outlived SIGTERM by the grace period. */
  forced: boolean;
}

export interface CommandResult {
  /** The shell's exit code; `null` when it was ended by a signal. */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** The tail of stdout and stderr, interleaved as they arrived. */
  output: string;
  /** Output bytes dropped from the head to keep the tail within the cap. */
  droppedBytes: number;
  stopped: CommandStop | undefined;
  durationMs: number;
}

/** How long to wait for the output pipes to close after the shell has exited. */
const PIPE_CLOSE_MS = 500;

/**
 * Runs `sh -c command` in its own process group and waits for it. On timeout or cancellation the
 * whole group gets SIGTERM, then SIGKILL after the grace period, so background jobs the command
 * started die with it. When the shell exits on its own, the group is killed too: a tool call
 * leaves nothing running behind it. In the sandbox, the group's leader is `bwrap`, and the command
 * runs in its own PID namespace: when that ends, the kernel ends every process in it, including
 * one that left the group on purpose (`setsid`).
 */
export async function runCommand(
  command: string,
  options: RunCommandOptions,
): Promise<CommandResult> {
  options.signal?.throwIfAborted();
  // Loaded on first use: a child that never runs a command does not pay for it at start-up.
  const { spawn } = await import('node:child_process');
  options.signal?.throwIfAborted();
  const started = Date.now();
  const shell = ['/bin/sh', '-c', command];
  const [file = '/bin/sh', ...args] =
    options.wrap === undefined ? shell : [...options.wrap, ...shell];
  // Only the output pipes reach the command: a descriptor this process inherited would pass
  // through bwrap into the sandbox, past its grant.
  const child = withSealedStdio(['ignore', 'pipe', 'pipe'], (stdio) =>
    spawn(file, args, {
      cwd: options.cwd,
      env: options.env,
      // A new process group (and session) led by the shell: `-pid` reaches every process in it.
      detached: true,
      stdio,
    }),
  );
  const tail = new OutputTail(options.maxOutputBytes);
  child.stdout.on('data', (chunk: Buffer) => {
    tail.push(chunk);
  });
  child.stderr.on('data', (chunk: Buffer) => {
    tail.push(chunk);
  });
  const killGroup = (signal: NodeJS.Signals): void => {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, signal);
    } catch {
      // ESRCH: the group is already gone, which is what we wanted.
    }
  };

  let stopped: CommandStop | undefined;
  let graceTimer: NodeJS.Timeout | undefined;
  const stop = (why: CommandStop['why']): void => {
    if (stopped !== undefined) return;
    stopped = { why, forced: false };
    killGroup('SIGTERM');
    graceTimer = setTimeout(() => {
      if (stopped !== undefined) stopped.forced = true;
      killGroup('SIGKILL');
    }, options.killGraceMs);
  };
  const timer = setTimeout(() => {
    stop('timeout');
  }, options.timeoutMs);
  const onAbort = (): void => {
    stop('cancelled');
  };
  options.signal?.addEventListener('abort', onAbort, { once: true });

  try {
    const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>(
      (resolve, reject) => {
        child.once('error', reject);
        child.once('exit', (code, signal) => {
          resolve({ code, signal });
        });
      },
    );
    // Background jobs still in the group would hold the pipes open and outlive the call.
    killGroup('SIGKILL');
    await pipesClosed(child.stdout, child.stderr);
    return {
      exitCode: exit.code,
      signal: exit.signal,
      output: tail.text(),
      droppedBytes: tail.dropped,
      stopped,
      durationMs: Date.now() - started,
    };
  } finally {
    clearTimeout(timer);
    clearTimeout(graceTimer);
    options.signal?.removeEventListener('abort', onAbort);
    child.stdout.destroy();
    child.stderr.destroy();
  }
}

/** Resolves when both pipes have closed, or after a short bound if an escaped process holds one. */
async function pipesClosed(...streams: NodeJS.ReadableStream[]): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, PIPE_CLOSE_MS);
  });
  const closed = Promise.all(
    streams.map(
      (stream) =>
        new Promise<void>((resolve) => {
          if ((stream as { closed?: boolean }).closed === true) resolve();
          else stream.once('close', resolve);
        }),
    ),
  );
  try {
    await Promise.race([closed.then(() => undefined), bound]);
  } finally {
    clearTimeout(timer);
  }
}
