import { readableStderrLine } from './stderr-line.js';
import {
  ArborError,
  outcomeOf,
  type AgentFrame,
  type Outcome,
  type SecretScrubber,
  type TerminalStatus,
  type TurnResult,
} from '../../protocol/index.js';
import type { ProcessExit } from '../launch/child-handle.js';
import { scrubTurn } from './transcript-record.js';
import type { LadderOutcome } from '../launch/kill-ladder.js';

/** Why the supervisor tore a child down, and the status a synthetic outcome then gets. */
export interface Teardown {
  status: TerminalStatus;
  reason: string;
}

/** How a supervised child ended. There is always one: a child that says nothing gets a synthetic outcome. */
export interface ChildEnd {
  outcome: Outcome;
  /** Which frame ended it, or `synthetic` when the supervisor had to decide. */
  via: 'result' | 'failed' | 'turn_done' | 'synthetic';
  /** The `failed` frame's error, when the child failed. */
  error?: { message: string; code?: string };
  turn?: TurnResult;
  exit: ProcessExit;
  teardown?: LadderOutcome;
  /**
   * Protocol violations the child made, all of them, and the lines it wrote after reaching the
   * violation limit, which were dropped unread. Absent when it made none.
   */
  protocol?: { violations: number; dropped: number };
}

/** An end with its outcome, error message and turn scrubbed: how it is recorded and passed on. */
export function scrubbedEnd(end: ChildEnd, scrub: SecretScrubber): ChildEnd {
  return {
    ...end,
    outcome: scrub.deep(end.outcome),
    ...(end.error === undefined
      ? {}
      : { error: { ...end.error, message: scrub.text(end.error.message) } }),
    ...(end.turn === undefined ? {} : { turn: scrubTurn(end.turn, scrub) }),
  };
}

/** What a terminal frame says, before the process has exited. */
export type TerminalReport = Omit<ChildEnd, 'exit' | 'teardown'>;

/** The report a terminal frame makes; `undefined` for every frame that is not terminal. */
export function terminalReport(frame: AgentFrame): TerminalReport | undefined {
  switch (frame.type) {
    case 'result':
      return { outcome: frame.outcome, via: 'result' };
    case 'failed':
      return {
        outcome: outcomeOf('failed', null, frame.error),
        via: 'failed',
        error: { message: frame.error, ...(frame.code === undefined ? {} : { code: frame.code }) },
      };
    case 'turn_done':
      return {
        outcome: outcomeOf(
          frame.turn.status,
          frame.turn.value ?? frame.turn.text ?? null,
          frame.turn.error,
        ),
        via: 'turn_done',
        turn: frame.turn,
      };
    case 'ready':
    case 'pong':
    case 'event':
    case 'usage':
    case 'turn':
    case 'gate':
    case 'gate_closed':
    case 'intel_health':
    case 'intel_limits':
    case 'tool_request':
    case 'budget_request':
      return undefined;
  }
}

/** The outcome of a child that ended without a terminal frame. */
export function syntheticEnd(
  exit: ProcessExit,
  teardown: Teardown | undefined,
  stderrTail: readonly string[],
  ladder: LadderOutcome | undefined,
): ChildEnd {
  const last = stderrTail.slice(-3).map(readableStderrLine);
  const tail = last.length > 0 ? `; last stderr: ${last.join(' | ')}` : '';
  const reason =
    teardown?.reason ??
    (exit.lost === undefined ? undefined : `worker lost: ${exit.lost}`) ??
    `exited (code ${String(exit.code)}, signal ${String(exit.signal)}) without a result${tail}`;
  return {
    outcome: outcomeOf(teardown?.status ?? 'crashed', null, reason),
    via: 'synthetic',
    exit,
    ...(ladder === undefined ? {} : { teardown: ladder }),
  };
}

/**
 * The error for a child that never said `ready`, with what it said on stderr (log lines by their
 * message). `teardown` is why the supervisor stopped it, when it did: that, not the signal it was
 * stopped with, is the cause.
 */
export function spawnFailure(
  exit: ProcessExit,
  failed: { message: string; code?: string } | undefined,
  stderrTail: readonly string[],
  teardown?: Teardown,
): ArborError {
  const exited = `code ${String(exit.code)}, signal ${String(exit.signal)}`;
  const how =
    exit.error !== undefined
      ? `could not start: ${exit.error.message}`
      : teardown !== undefined
        ? `was stopped before \`ready\`: ${teardown.reason} (it exited with ${exited})`
        : `exited (${exited}) before \`ready\``;
  // A message that ends a sentence is joined to the stderr lines without a stray `.;`.
  const said = failed?.message.replace(/\.\s*$/, '');
  const message = [
    `child ${how}`,
    said === undefined ? '' : `: ${said}`,
    stderrTail.length === 0
      ? ''
      : `; last stderr lines:\n${stderrTail.map(readableStderrLine).join('\n')}`,
  ].join('');
  return new ArborError('spawn_failed', message, {
    // The child's own error code (`mcp_unavailable`, `intel_auth`, …) decides the exit code.
    details: {
      exitCode: exit.code,
      signal: exit.signal,
      stderr: [...stderrTail],
      ...(failed?.code === undefined ? {} : { failedCode: failed.code }),
    },
  });
}

/**
 * A child torn down because its deadline passed answers the `cancel` it was sent with a
 * `cancelled` result; the cause was the deadline, and the node ends with that status.
 */
export function deadlineWins(
  terminal: TerminalReport,
  teardown: Teardown | undefined,
): TerminalReport {
  if (teardown?.status !== 'deadline' || terminal.outcome.status !== 'cancelled') return terminal;
  return {
    ...terminal,
    outcome: { ...terminal.outcome, status: 'deadline', reason: teardown.reason },
  };
}
