import { withSealedStdio } from './inherited-fds.js';

/** How `runFile` runs a program. */
export interface RunFileOptions {
  /** The whole environment of the program: nothing of this process's is added. */
  env: NodeJS.ProcessEnv;
  cwd?: string;
  /** Past it the program gets `killSignal`; absent, it may run as long as it likes. */
  timeoutMs?: number;
  /** Default `SIGTERM`. */
  killSignal?: NodeJS.Signals;
  /** Bytes kept of each of stdout and stderr (the head; default 1 MiB); the rest is counted. */
  maxOutputBytes?: number;
  /** Aborting it sends `killSignal` at once. */
  signal?: AbortSignal;
}

/** How a program run by `runFile` ended. */
export interface FileRun {
  /** Its exit code; `null` when a signal ended it or it never started. */
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Set when it could not be started (`ENOENT`, `EACCES`, …): nothing ran. */
  error?: Error;
  /** It was sent `killSignal` when `timeoutMs` passed. */
  timedOut: boolean;
  stdout: string;
  stderr: string;
  /** Output bytes past `maxOutputBytes`, dropped. */
  droppedBytes: number;
}

const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024;

/**
 * `execFile` without the descriptors this process inherited: runs `file` with `args` (no shell),
 * its stdin `/dev/null`, and collects its output as UTF-8. `execFile` cannot be given a `stdio`
 * array, so it cannot be sealed (`withSealedStdio`); this is what arbor runs helper programs with.
 * Never rejects: a program that cannot start, fails or is killed is described by the result.
 */
export async function runFile(
  file: string,
  args: readonly string[],
  options: RunFileOptions,
): Promise<FileRun> {
  // Loaded on first use, as `runCommand` does: most processes never run a helper program.
  const { spawn } = await import('node:child_process');
  const stdout = new HeadBuffer(options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES);
  const stderr = new HeadBuffer(options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES);
  let timedOut = false;
  const ended = (exit: Pick<FileRun, 'code' | 'signal' | 'error'>): FileRun => ({
    ...exit,
    timedOut,
    stdout: stdout.text(),
    stderr: stderr.text(),
    droppedBytes: stdout.dropped + stderr.dropped,
  });
  let child;
  try {
    child = withSealedStdio(['ignore', 'pipe', 'pipe'], (stdio) =>
      spawn(file, args, { cwd: options.cwd, env: options.env, stdio }),
    );
  } catch (error) {
    // Thrown, not emitted, for the errors Node does not expect of a program (`EINVAL`).
    return ended({ code: null, signal: null, error: asError(error) });
  }
  child.stdout.on('data', (chunk: Buffer) => {
    stdout.push(chunk);
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr.push(chunk);
  });
  const stop = (): void => {
    child.kill(options.killSignal ?? 'SIGTERM');
  };
  options.signal?.addEventListener('abort', stop, { once: true });
  if (options.signal?.aborted === true) stop();
  const timer =
    options.timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = true;
          child.kill(options.killSignal ?? 'SIGTERM');
        }, options.timeoutMs);
  try {
    return ended(
      await new Promise((resolve) => {
        child.once('error', (error) => {
          // 'close' may never follow a failed start; an error after one (a failed kill) is no end.
          if (child.pid === undefined) resolve({ code: null, signal: null, error });
        });
        child.once('close', (code, signal) => {
          resolve({ code, signal });
        });
      }),
    );
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', stop);
  }
}

/** The first `cap` bytes of a stream, and how many came past them. */
class HeadBuffer {
  readonly #chunks: Buffer[] = [];
  #kept = 0;
  dropped = 0;

  constructor(readonly cap: number) {}

  push(chunk: Buffer): void {
    const room = Math.max(0, this.cap - this.#kept);
    if (room > 0) this.#chunks.push(chunk.subarray(0, room));
    this.#kept += Math.min(room, chunk.length);
    this.dropped += Math.max(0, chunk.length - room);
  }

  text(): string {
    return Buffer.concat(this.#chunks).toString('utf8');
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
