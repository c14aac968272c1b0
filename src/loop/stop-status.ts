import type { Finish, TerminalStatus } from '../protocol/index.js';

/** The status a budget refusal ends a turn with, by the limit the supervisor says is spent. */
export function refusedStatus(limit: unknown): TerminalStatus {
  switch (limit) {
    case 'tokens':
      return 'exhausted_tokens';
    case 'steps':
      return 'exhausted_steps';
    case 'time':
      return 'deadline';
    default:
      return 'exhausted_budget';
  }
}

export function finishStatus(finish: Finish): TerminalStatus {
  return finish.status;
}

export function reasonOf(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason.message;
  return typeof reason === 'string' ? reason : 'cancelled';
}
