/** How a stdio server's process ended when arbor closed it. */
type StopHow =
  /** It had already exited (a crash, or an earlier close). */
  | 'already_exited'
  /** It exited on its own once its stdin closed, as MCP servers should. */
  | 'exited'
  /** It needed SIGTERM. */
  | 'terminated'
  /** It needed SIGKILL. */
  | 'killed'
  /** It was still there after SIGKILL and a grace period (a process stuck in the kernel). */
  | 'lingering';

/** The recorded outcome of closing one server: how it ended and how long that took. */
export interface StopOutcome {
  how: StopHow;
  ms: number;
}

export interface StopTarget {
  pid: number | undefined;
  hasExited(): boolean;
  /** Resolves when the process has exited and been reaped. */
  exited: Promise<void>;
  /** Closes the server's stdin: the polite request to exit. */
  endInput(): void;
}

async function waitFor(exited: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<boolean>((resolve) => {
    timer = setTimeout(resolve, ms, false);
  });
  try {
    return await Promise.race([exited.then(() => true), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

function signal(target: StopTarget, name: NodeJS.Signals): void {
  // Checked right before signalling, so a pid that exited (and might be reused) is left alone.
  if (target.pid === undefined || target.hasExited()) return;
  try {
    process.kill(target.pid, name);
  } catch {
    // ESRCH: it exited between the check and the signal.
  }
}

/**
 * Ends a stdio server's process by a ladder: close stdin and wait `graceMs`, then SIGTERM and wait,
 * then SIGKILL and wait. `force` skips the polite first step (a server that failed to connect is
 * not trusted to honour it). Resolves only once the process is gone or the ladder is spent.
 */
export async function stopProcess(
  target: StopTarget,
  options: { graceMs: number; force?: boolean },
): Promise<StopOutcome> {
  const started = performance.now();
  const outcome = (how: StopHow): StopOutcome => ({
    how,
    ms: Math.round(performance.now() - started),
  });
  if (target.pid === undefined || target.hasExited()) return outcome('already_exited');
  target.endInput();
  if (options.force !== true && (await waitFor(target.exited, options.graceMs)))
    return outcome('exited');
  signal(target, 'SIGTERM');
  if (await waitFor(target.exited, options.graceMs)) return outcome('terminated');
  signal(target, 'SIGKILL');
  if (await waitFor(target.exited, options.graceMs)) return outcome('killed');
  return outcome('lingering');
}
