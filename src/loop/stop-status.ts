import { outcomeOf, type Finish, type TerminalStatus } from '../protocol/index.js';
import type { TurnReport } from './session-types.js';

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

/**
 * How a turn ended, as its report: the result is what a structured-output capture took, else the
 * `finish` call's output, else the last answer text. A turn that did not complete (and was not
 * refused) is partial.
 */
export function turnReport(
  ended: {
    status: TerminalStatus;
    reason: string | undefined;
    finish?: Finish;
    captured?: { value: unknown };
  },
  turn: Omit<TurnReport, 'outcome' | 'finish'>,
): TurnReport {
  const { status, reason, finish, captured } = ended;
  const result =
    captured !== undefined
      ? captured.value
      : finish === undefined
        ? (turn.text ?? null)
        : finish.output;
  return { outcome: outcomeOf(status, result, reason), finish, ...turn };
}
