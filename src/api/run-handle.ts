import type { Outcome, TerminalStatus, Usage } from '../protocol/index.js';
import type { ArborEvent } from '../runtime/index.js';
import type { Supervisor } from '../supervisor/index.js';
import type { EventStream } from './event-stream.js';
import type { GateAnswers } from './gate-answers.js';

/** How a run ended. */
export interface RunResult {
  runId: string;
  status: TerminalStatus;
  /** The root's answer as text ('' when it gave none). */
  text: string;
  /** The root's answer when it is structured (an output schema's value), not text. */
  structured?: unknown;
  /** Why it ended so, when it did not complete. */
  reason?: string;
  /** Tokens and cost of the root's own model calls. */
  usage: Usage;
  /** Tokens and cost of the whole tree. */
  subtreeUsage: Usage;
  /** What `arbor run` would exit with (the exit codes of docs/running.md). */
  exitCode: number;
}

/** A run's result from its root's outcome. */
export function resultOf(
  runId: string,
  outcome: Pick<Outcome, 'status' | 'result' | 'reason'>,
  usage: Usage,
  subtreeUsage: Usage,
  exitCode: number,
): RunResult {
  const value = outcome.result;
  const text =
    value === null || value === undefined
      ? ''
      : typeof value === 'string'
        ? value
        : JSON.stringify(value);
  return {
    runId,
    status: outcome.status,
    text,
    ...(typeof value === 'object' && value !== null ? { structured: value } : {}),
    ...(outcome.reason === undefined ? {} : { reason: outcome.reason }),
    usage,
    subtreeUsage,
    exitCode,
  };
}

/** What a handle controls once its run has started. */
export interface RunControl {
  supervisor: Supervisor;
  /** The root's node id (a plan's node for a plan run). */
  rootId: string;
  /** Stops a plan's scheduling, when the run is a plan. */
  stop?(reason: string): void;
}

/**
 * One run, as the host holds it: its events as they happen, its result, and its controls. Every
 * control can be called at once: it applies as soon as the run has started.
 */
export class RunHandle {
  readonly runId: string;
  /** Every event of the run, from the first, for as many readers as want them. */
  readonly events: AsyncIterable<ArborEvent>;
  /** How the run ended; rejects only when it could not start (a bad option, a root that never started). */
  readonly result: Promise<RunResult>;
  readonly #control: Promise<RunControl | undefined>;
  readonly #gates: GateAnswers;

  constructor(options: {
    runId: string;
    events: EventStream;
    gates: GateAnswers;
    control: Promise<RunControl | undefined>;
    result: Promise<RunResult>;
  }) {
    this.runId = options.runId;
    this.events = options.events;
    this.#gates = options.gates;
    this.#control = options.control;
    this.result = options.result;
    // A host that only reads events still sees how the run ended there; the rejection is its.
    this.result.catch(() => undefined);
  }

  /** Cancels the whole tree (deepest first, through the kill ladder); resolves once it has stopped. */
  async cancel(reason = 'cancelled by the host'): Promise<void> {
    const control = await this.#control;
    if (control === undefined) return;
    control.stop?.(reason);
    await control.supervisor.stopAll(reason);
  }

  /** Holds every agent at its next step. */
  async pause(): Promise<void> {
    (await this.#control)?.supervisor.broadcast({ type: 'pause' });
  }

  /** Lets paused agents go on. */
  async resume(): Promise<void> {
    (await this.#control)?.supervisor.broadcast({ type: 'resume' });
  }

  /** Answers a question an agent asked (`gate.opened`'s `gate`). */
  answerGate(gateId: string, answer: string): void {
    this.#gates.answer(gateId, answer);
  }

  /** Sends the next message to a warm root (`warm: true`); false when it has no live root. */
  async send(message: string): Promise<boolean> {
    const control = await this.#control;
    return control?.supervisor.send(control.rootId, { type: 'inject', message }) ?? false;
  }

  /** Ends a warm root's session: it finishes its current answer and the run completes. */
  async end(reason = 'the session ended'): Promise<void> {
    const control = await this.#control;
    control?.supervisor.send(control.rootId, { type: 'cancel', reason });
  }
}
