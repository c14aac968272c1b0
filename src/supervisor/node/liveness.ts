/**
 * Child health, from three detectors: the hard deadline, progress (any frame but `pong`) and
 * ping/pong. Evaluated in this order: a child that has exited is dead; past its deadline it is
 * torn down whatever it is doing; recent progress is healthy; a recent `pong` without progress is
 * busy (a long model or tool call) and left alone; neither is stuck.
 */
export type Health = 'dead' | 'deadline_exceeded' | 'healthy' | 'busy' | 'stuck';

export interface LivenessState {
  now: number;
  exited: boolean;
  /** Milliseconds since the epoch; absent when the child has no deadline. */
  deadlineAt: number | undefined;
  lastProgressAt: number;
  lastPongAt: number;
}

export interface LivenessLimits {
  progressTimeoutMs: number;
  pongTimeoutMs: number;
}

export function classify(state: LivenessState, limits: LivenessLimits): Health {
  if (state.exited) return 'dead';
  if (state.deadlineAt !== undefined && state.now >= state.deadlineAt) return 'deadline_exceeded';
  if (state.now - state.lastProgressAt < limits.progressTimeoutMs) return 'healthy';
  if (state.now - state.lastPongAt < limits.pongTimeoutMs) return 'busy';
  return 'stuck';
}

/** Health values that call for teardown. */
export function needsTeardown(health: Health): boolean {
  return health === 'dead' || health === 'deadline_exceeded' || health === 'stuck';
}
