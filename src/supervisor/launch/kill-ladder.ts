/** One rung the ladder climbed, and when (milliseconds after it started). */
interface LadderStep {
  step: 'cancel' | 'sigterm' | 'sigkill';
  atMs: number;
}

/** The recorded outcome of a teardown: why, how, how long, and whether it had to force. */
export interface LadderOutcome {
  reason: string;
  steps: LadderStep[];
  /** Whether the child exited (it may not, if it is unkillable or already a zombie). */
  exited: boolean;
  /** Milliseconds from the first rung to the exit (or to giving up). */
  durationMs: number;
  /** True when a signal had to be sent: the child did not wind down on `cancel` alone. */
  forced: boolean;
}

export interface LadderTarget {
  /** Sends the `cancel` frame; false when the channel is already closed. */
  sendCancel(reason: string): boolean;
  /** Signals the child's whole process group. */
  signalGroup(signal: 'SIGTERM' | 'SIGKILL'): void;
  /** Resolves when the child has exited. */
  exited: Promise<unknown>;
  hasExited(): boolean;
}

export interface LadderOptions {
  reason: string;
  cancelGraceMs: number;
  termGraceMs: number;
  killWaitMs: number;
  /** Skip straight to SIGKILL (a second interrupt, or an unrecoverable child). */
  force?: boolean;
  now?: () => number;
}

/**
 * Tears a child down, one rung at a time, each bounded: `cancel` (a graceful wind-down at the next
 * boundary), then SIGTERM to its process group, then SIGKILL. Stops climbing as soon as the child
 * exits, and returns what it did.
 */
export async function killLadder(
  target: LadderTarget,
  options: LadderOptions,
): Promise<LadderOutcome> {
  const now = options.now ?? (() => Date.now());
  const started = now();
  const steps: LadderStep[] = [];
  const done = (): LadderOutcome => ({
    reason: options.reason,
    steps,
    exited: target.hasExited(),
    durationMs: now() - started,
    forced: steps.some((s) => s.step !== 'cancel'),
  });
  if (target.hasExited()) return done();

  if (options.force !== true) {
    if (target.sendCancel(options.reason)) {
      steps.push({ step: 'cancel', atMs: now() - started });
      if (await exitsWithin(target, options.cancelGraceMs)) return done();
    }
    steps.push({ step: 'sigterm', atMs: now() - started });
    target.signalGroup('SIGTERM');
    if (await exitsWithin(target, options.termGraceMs)) return done();
  }
  steps.push({ step: 'sigkill', atMs: now() - started });
  target.signalGroup('SIGKILL');
  await exitsWithin(target, options.killWaitMs);
  return done();
}

async function exitsWithin(target: LadderTarget, ms: number): Promise<boolean> {
  if (target.hasExited()) return true;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => {
      resolve(false);
    }, ms);
  });
  try {
    return await Promise.race([target.exited.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
