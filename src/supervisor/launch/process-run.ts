import {
  excerptOf,
  PROTOCOL_VERSION,
  type AgentFrame,
  type ArborError,
  type ControlFrame,
  type ProtocolViolation,
  type SpawnPayload,
  type TerminalStatus,
} from '../../protocol/index.js';
import type { ToolAnswer } from '../internal/tool-answer.js';
import {
  deadlineWins,
  spawnFailure,
  syntheticEnd,
  terminalReport,
  type ChildEnd,
  type Teardown,
  type TerminalReport,
} from '../node/child-end.js';
import type { ChildHandle, ProcessExit } from './child-handle.js';
import { ChildBounds, type OverBound } from '../node/child-bounds.js';
import { ChildProcess } from './child-process.js';
import { killLadder, type LadderOutcome } from './kill-ladder.js';
import { classify, needsTeardown } from '../node/liveness.js';
import type { ProcessRunOptions } from './process-run-options.js';
import { pingIntervalMs } from '../timing.js';

type ToolRequest = Extract<AgentFrame, { type: 'tool_request' }>;
type BudgetRequest = Extract<AgentFrame, { type: 'budget_request' }>;

export type { ProcessRunHandlers, ProcessRunOptions } from './process-run-options.js';

/**
 * A child process under supervision: started with its payload as the first frame, watched by the
 * three liveness detectors, its protocol violations counted, its requests served, and torn down
 * by the kill ladder when it must be. `result` always settles.
 */
export class ProcessRun {
  readonly #child: ChildHandle;
  readonly #options: ProcessRunOptions;
  readonly #now: () => number;
  readonly #ready: Promise<void>;
  readonly result: Promise<ChildEnd>;
  #resolveReady!: () => void;
  #rejectReady!: (error: ArborError) => void;
  #isReady = false;
  #terminal: TerminalReport | undefined;
  #teardown: Teardown | undefined;
  #ladder: Promise<LadderOutcome> | undefined;
  #violations = 0;
  /** Set once the violation limit is reached: nothing more the child says is passed on. */
  #isCondemned = false;
  /** Lines (frames and violations alike) ignored after the child was condemned. */
  #dropped = 0;
  /** Lines read from the child so far: the line number of an over-bound frame. */
  #lines = 0;
  readonly #bounds = new ChildBounds();
  #lastProgressAt: number;
  #lastPongAt: number;
  #deadlineAt: number | undefined;
  #deadlineTimer: NodeJS.Timeout | undefined;
  #pingSeq = 0;
  #pinger: NodeJS.Timeout | undefined;
  /** Tears the child down if it never says `ready`; cleared once it does. */
  #readyTimer: NodeJS.Timeout | undefined;
  readonly #payload: SpawnPayload;

  constructor(payload: SpawnPayload, options: ProcessRunOptions) {
    this.#options = options;
    this.#payload = payload;
    this.#now = options.now ?? (() => Date.now());
    this.#lastProgressAt = this.#lastPongAt = this.#now();
    this.#armDeadline();
    this.#ready = new Promise((resolve, reject) => {
      this.#resolveReady = resolve;
      this.#rejectReady = reject;
    });
    this.#ready.catch(() => undefined);
    this.#child =
      options.child ??
      new ChildProcess({
        command: (options.command ?? missingCommand()).command,
        args: (options.command ?? missingCommand()).args,
        env: options.env ?? {},
        ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
      });
    this.#child.attach({
      onFrame: (frame) => {
        this.#onFrame(frame);
      },
      onViolation: (violation) => {
        this.#onViolation(violation);
      },
      onStderr: (line) => {
        if (!this.#isCondemned) options.handlers.onStderr?.(line);
      },
    });
    this.#child.send({ type: 'spawn', protocol: PROTOCOL_VERSION, payload });
    this.#pinger = setInterval(() => {
      this.#tick();
    }, pingIntervalMs(options.timing));
    this.#readyTimer = setTimeout(() => {
      void this.#beginTeardown({
        status: 'crashed',
        reason: `it sent no \`ready\` within the start timeout of ${options.timing.readyTimeoutMs} ms`,
      });
    }, options.timing.readyTimeoutMs);
    this.result = this.#child.exited.then(async (exit) => {
      clearTimeout(this.#readyTimer);
      clearTimeout(this.#deadlineTimer);
      if (this.#pinger !== undefined) clearInterval(this.#pinger);
      const teardown = this.#ladder === undefined ? undefined : await this.#ladder;
      if (!this.#isReady) this.#rejectReady(this.#spawnError(exit));
      return this.#end(exit, teardown);
    });
  }

  /** Resolves once the child said `ready`; rejects with `spawn_failed` if it died or failed first. */
  ready(): Promise<void> {
    return this.#ready;
  }

  /** What the run's child is: its process id, and whether it came from a pool. */
  get child(): Pick<ChildHandle, 'pid' | 'pooled'> {
    return this.#child;
  }

  send(frame: ControlFrame): boolean {
    if (frame.type === 'inject') this.#armDeadline();
    return this.#child.send(frame);
  }

  /** Tears the child down with the ladder; resolves when it has run. Idempotent. */
  stop(
    reason: string,
    options: { status?: TerminalStatus; force?: boolean } = {},
  ): Promise<LadderOutcome> {
    return this.#beginTeardown(
      { status: options.status ?? 'cancelled', reason },
      options.force === true,
    );
  }

  #onFrame(frame: AgentFrame): void {
    if (this.#isCondemned) {
      this.#dropped += 1;
      return;
    }
    this.#lines += 1;
    const over = this.#bounds.admit(frame);
    if (over !== undefined) {
      this.#refuse(frame, over);
      return;
    }
    const now = this.#now();
    if (frame.type === 'pong') this.#lastPongAt = now;
    else this.#lastProgressAt = this.#lastPongAt = now;
    if (frame.type === 'ready') {
      // Left armed, the timer would tear down a healthy long-lived child when it ran out.
      clearTimeout(this.#readyTimer);
      this.#isReady = true;
      this.#resolveReady();
    } else if (frame.type === 'turn') {
      // A warm session between turns is idle: no deadline until the next inject.
      this.#deadlineAt = undefined;
      clearTimeout(this.#deadlineTimer);
    } else if (frame.type === 'tool_request') {
      void this.#serveTool(frame);
    } else if (frame.type === 'budget_request') {
      void this.#serveBudget(frame);
    }
    const terminal = terminalReport(frame);
    if (terminal !== undefined) this.#finishWith(terminal);
    this.#options.handlers.onFrame?.(frame);
  }

  #finishWith(terminal: TerminalReport): void {
    if (this.#terminal !== undefined) return;
    this.#terminal = terminal;
    // The child has said its last word: close its input so it exits, and make sure it does.
    this.#child.closeInput();
    const { cancelGraceMs } = this.#options.timing;
    setTimeout(() => {
      if (this.#child.hasExited()) return;
      void this.#beginTeardown({
        status: terminal.outcome.status,
        reason: 'did not exit after its terminal frame',
      });
    }, cancelGraceMs).unref();
  }

  async #serveTool(frame: ToolRequest): Promise<void> {
    let answer: ToolAnswer;
    try {
      answer = await this.#options.handlers.onToolRequest(frame);
    } catch (error) {
      answer = {
        result: `Tool \`${frame.name}\` failed in the supervisor: ${error instanceof Error ? error.message : String(error)}`,
        is_error: true,
      };
    }
    this.#bounds.settle('tool', frame.id);
    this.#child.send({
      type: 'tool_result',
      id: frame.id,
      result: answer.result ?? null,
      is_error: answer.is_error,
      ...(answer.refused === true ? { refused: true } : {}),
      ...(answer.taint === undefined ? {} : { taint: answer.taint }),
    });
  }

  async #serveBudget(frame: BudgetRequest): Promise<void> {
    let grant: Omit<Extract<ControlFrame, { type: 'budget_grant' }>, 'type' | 'id'>;
    try {
      grant = await this.#options.handlers.onBudgetRequest(frame);
    } catch (error) {
      grant = { ok: false, reason: error instanceof Error ? error.message : String(error) };
    }
    this.#bounds.settle('budget', frame.id);
    this.#child.send({ type: 'budget_grant', id: frame.id, ...grant });
  }

  /**
   * A frame past a bound is a violation, and is not acted on. A request still gets its answer (a
   * refusal), so a child that is merely busy does not wait on it forever.
   */
  #refuse(frame: AgentFrame, over: OverBound): void {
    const reason = `${frame.type}: ${over.reason}`;
    if (frame.type === 'tool_request' && over.code === 'over_bound')
      this.#child.send({
        type: 'tool_result',
        id: frame.id,
        result: `Refused by the supervisor: ${reason}.`,
        is_error: true,
        refused: true,
      });
    else if (frame.type === 'budget_request' && over.code === 'over_bound')
      this.#child.send({ type: 'budget_grant', id: frame.id, ok: false, reason });
    this.#violate({
      line: this.#lines,
      code: over.code,
      reason,
      excerpt: excerptOf(JSON.stringify(frame).slice(0, 400)),
    });
  }

  #onViolation(violation: ProtocolViolation): void {
    if (this.#isCondemned) {
      this.#violations += 1;
      this.#dropped += 1;
      return;
    }
    this.#lines += 1;
    this.#violate(violation);
  }

  /**
   * Counts a violation and passes it on. At the limit the child is condemned: torn down, and
   * from then on nothing it writes reaches the handlers (the store, the event stream); what is
   * dropped is counted in its end.
   */
  #violate(violation: ProtocolViolation): void {
    this.#violations += 1;
    this.#options.handlers.onViolation?.(violation);
    const limit = this.#options.timing.violationLimit;
    if (this.#violations >= limit) {
      this.#isCondemned = true;
      void this.#beginTeardown({
        status: 'crashed',
        reason: `${this.#violations} protocol violations (limit ${limit}); last: ${violation.code} at line ${violation.line}`,
      });
    }
  }

  #tick(): void {
    if (this.#child.hasExited() || this.#teardown !== undefined) return;
    this.#child.send({ type: 'ping', seq: ++this.#pingSeq });
    const { progressTimeoutMs, pongTimeoutMs } = this.#options.timing;
    const health = classify(
      {
        now: this.#now(),
        exited: false,
        deadlineAt: this.#deadlineAt,
        lastProgressAt: this.#lastProgressAt,
        lastPongAt: this.#lastPongAt,
      },
      { progressTimeoutMs, pongTimeoutMs },
    );
    if (!needsTeardown(health)) return;
    if (health === 'deadline_exceeded') {
      this.#deadlinePassed();
    } else {
      void this.#beginTeardown({
        status: 'crashed',
        reason: `unresponsive: no progress for ${progressTimeoutMs} ms and no pong for ${pongTimeoutMs} ms`,
      });
    }
  }

  #beginTeardown(teardown: Teardown, force = false): Promise<LadderOutcome> {
    if (this.#ladder !== undefined && !force) return this.#ladder;
    this.#teardown ??= teardown;
    this.#options.handlers.onTeardown?.(teardown.reason);
    const { cancelGraceMs, termGraceMs, killWaitMs } = this.#options.timing;
    this.#ladder = killLadder(
      {
        sendCancel: (reason) => this.#child.send({ type: 'cancel', reason }),
        signalGroup: (signal) => {
          this.#child.signalGroup(signal);
        },
        exited: this.#child.exited,
        hasExited: () => this.#child.hasExited(),
      },
      { reason: teardown.reason, cancelGraceMs, termGraceMs, killWaitMs, force, now: this.#now },
    );
    return this.#ladder;
  }

  /**
   * The hard deadline: the child's own deadline plus the grace, on a timer of its own so teardown
   * starts when it passes, not at the next ping.
   */
  #armDeadline(): void {
    clearTimeout(this.#deadlineTimer);
    const ms = this.#payload.limits.deadline_ms;
    if (ms === undefined) {
      this.#deadlineAt = undefined;
      return;
    }
    const afterMs = ms + this.#options.timing.deadlineGraceMs;
    this.#deadlineAt = this.#now() + afterMs;
    this.#deadlineTimer = setTimeout(() => {
      this.#deadlinePassed();
    }, afterMs);
  }

  #deadlinePassed(): void {
    if (this.#child.hasExited() || this.#teardown !== undefined) return;
    const ms = this.#payload.limits.deadline_ms ?? 0;
    void this.#beginTeardown({
      status: 'deadline',
      reason: `deadline of ${ms} ms (+${this.#options.timing.deadlineGraceMs} ms grace) passed`,
    });
  }

  #spawnError(exit: ProcessExit): ArborError {
    const failed = this.#terminal?.via === 'failed' ? this.#terminal.error : undefined;
    return spawnFailure(exit, failed, this.#child.stderrTail(), this.#teardown);
  }

  #end(exit: ProcessExit, ladder: LadderOutcome | undefined): ChildEnd {
    const protocol =
      this.#violations === 0
        ? {}
        : { protocol: { violations: this.#violations, dropped: this.#dropped } };
    if (this.#terminal !== undefined)
      return {
        ...deadlineWins(this.#terminal, this.#teardown),
        exit,
        ...(ladder === undefined ? {} : { teardown: ladder }),
        ...protocol,
      };
    return { ...syntheticEnd(exit, this.#teardown, this.#child.stderrTail(), ladder), ...protocol };
  }
}

function missingCommand(): never {
  throw new Error('ProcessRun needs a `child` or a `command`');
}
