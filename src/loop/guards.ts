import type { TerminalStatus } from '../protocol/index.js';

/** The bounds of one turn, fixed when it starts. */
export interface TurnBounds {
  maxSteps: number;
  maxTokens: number | undefined;
  /** Milliseconds since the epoch after which no model call starts; absent means none. */
  deadlineAt: number | undefined;
  deadlineMs: number | undefined;
}

/** Where a turn stands before its next model call. */
export interface TurnProgress {
  cancelReason: string | undefined;
  now: number;
  steps: number;
  tokens: number;
}

export interface Stop {
  status: TerminalStatus;
  reason: string;
}

/**
 * The checks made before every model call, in this order: cancelled, deadline, steps, tokens.
 * The order matters: a cancelled run reports `cancelled` even if it is also out of steps.
 */
export function checkGuards(progress: TurnProgress, bounds: TurnBounds): Stop | undefined {
  if (progress.cancelReason !== undefined) {
    return { status: 'cancelled', reason: `cancelled: ${progress.cancelReason}` };
  }
  if (bounds.deadlineAt !== undefined && progress.now >= bounds.deadlineAt) {
    return { status: 'deadline', reason: `deadline of ${bounds.deadlineMs ?? 0} ms passed` };
  }
  if (progress.steps >= bounds.maxSteps) {
    return { status: 'exhausted_steps', reason: `max_steps ${bounds.maxSteps} reached` };
  }
  if (bounds.maxTokens !== undefined && progress.tokens >= bounds.maxTokens) {
    return {
      status: 'exhausted_tokens',
      reason: `max_tokens ${bounds.maxTokens} reached (${progress.tokens} tokens used)`,
    };
  }
  return undefined;
}

/**
 * A turn's cancellation, and its deadline when it has one; `dispose` clears the deadline's timer.
 * The timer holds its controller: an `AbortSignal.timeout` only referenced through
 * `AbortSignal.any` can be garbage-collected before it fires, and the deadline with it.
 */
export function boundedSignal(
  signal: AbortSignal,
  bounds: TurnBounds,
  now: number,
): { signal: AbortSignal; dispose: () => void } {
  if (bounds.deadlineAt === undefined) return { signal, dispose: () => undefined };
  const deadline = new AbortController();
  const timer = setTimeout(
    () => {
      deadline.abort(new Error(`deadline of ${bounds.deadlineMs ?? 0} ms passed`));
    },
    Math.max(1, bounds.deadlineAt - now),
  );
  return {
    signal: AbortSignal.any([signal, deadline.signal]),
    dispose: () => {
      clearTimeout(timer);
    },
  };
}
