import {
  outcomeOf,
  type ControlFrame,
  type SpawnPayload,
  type TerminalStatus,
} from '../../protocol/index.js';
import type { ChildHandle } from '../launch/child-handle.js';
import type { LadderOutcome } from '../launch/kill-ladder.js';
import type { ChildEnd } from './child-end.js';
import { ProcessRun, type ProcessRunHandlers } from '../launch/process-run.js';
import { DEFAULT_GOVERNOR, RestartGovernor } from './restart-governor.js';
import { sleep } from '../sleep.js';
import type { Timing } from '../timing.js';

export interface NodeRunnerOptions {
  payload: SpawnPayload;
  /** Starts the running side of the node (once per attempt), through its provider. */
  startChild(payload: SpawnPayload, attempt: number): ChildHandle;
  /**
   * A node whose machine can be lost (a fleet worker): when it is, the node is started again,
   * up to `attempts` in all, from `payload()` (its recorded transcript).
   */
  requeue?: { attempts: number; payload(): SpawnPayload };
  /** The node is being started again after its machine was lost (attempt number, why). */
  onRequeue?(attempt: number, reason: string): void;
  timing: Timing;
  handlers: ProcessRunHandlers;
  now: () => number;
  /** A restart is about to happen (attempt number, delay, why). */
  onRestart?(attempt: number, delayMs: number, reason: string): void;
  /** The child said `ready` (on every attempt), with its process id. */
  onReady?(attempt: number, pid: number | undefined, pooled: boolean): void;
  /**
   * The payload that wakes a parked node: its recorded transcript, with `deadlineMs` (what is left
   * of its deadline, if it has one) as its deadline.
   */
  wakePayload?(deadlineMs: number | undefined): SpawnPayload;
  /** A parked node is being woken: what it waited for arrived. */
  onWake?(): void;
}

/** The longest a Node timer holds. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** A node whose child went away while it only waited: what it waits for to wake. */
interface Parked {
  arrived: Promise<void>;
}

/**
 * One node's child process from spawn to end. A warm child that crashes is started again under
 * the restart governor (backoff with jitter, then a breaker), and the messages it had not yet
 * answered are delivered again; a one-shot child is never restarted.
 */
export class NodeRunner {
  readonly #options: NodeRunnerOptions;
  readonly #governor: RestartGovernor;
  readonly #stopped = new AbortController();
  #run: ProcessRun | undefined;
  #attempt = 0;
  /** The payload the next attempt starts with: the first, or one rebuilt after a loss. */
  #payload: SpawnPayload;
  /** Injected messages not yet answered by a `turn` frame, oldest first, and the run each went to. */
  #unanswered: { message: string; sentTo: ProcessRun | undefined }[] = [];
  #turnsSeen = 0;
  /** A turn has answered the instruction: a restarted child that answers it again is not heard. */
  #instructionAnswered = false;
  /** The `cancel` that closes the session, once asked for, and the run it last went to. */
  #closing: { frame: ControlFrame; sentTo: ProcessRun | undefined } | undefined;
  /**
   * A resumed warm session whose last turn was answered before the crash: its child does not
   * answer it again, so its first turn answers the oldest message, and it is caught up at once.
   */
  readonly #answered: boolean;
  /** Set while the node is parked (or its child is being let go to park it). */
  #parked: Parked | undefined;
  /** When the first attempt started: the node's deadline counts from it, parked or not. */
  #startedAt: number | undefined;
  /** The status a stop ends the node with (`cancelled` unless a deadline is the cause). */
  #stopStatus: 'cancelled' | 'deadline' = 'cancelled';

  constructor(options: NodeRunnerOptions) {
    this.#options = options;
    this.#payload = options.payload;
    this.#answered = options.payload.warm && options.payload.resume?.answered !== undefined;
    this.#governor = new RestartGovernor({
      ...DEFAULT_GOVERNOR,
      baseMs: options.timing.restartBaseMs,
      capMs: options.timing.restartCapMs,
    });
  }

  get attempt(): number {
    return this.#attempt;
  }

  /** Runs the node to its end; rejects with `spawn_failed` when a one-shot child never starts. */
  async run(): Promise<ChildEnd> {
    for (;;) {
      this.#attempt += 1;
      const run = this.#start();
      let beforeReady = false;
      try {
        await run.ready();
        this.#options.onReady?.(this.#attempt, run.child.pid, run.child.pooled === true);
        for (const item of this.#unanswered) {
          if (item.sentTo !== run && run.send({ type: 'inject', message: item.message }))
            item.sentTo = run;
        }
        this.#closeIfCaughtUp();
      } catch (error) {
        beforeReady = true;
        if (!this.#options.payload.warm || this.#stopped.signal.aborted) {
          const end = await run.result;
          if (this.#requeue(end)) continue;
          throw error;
        }
      }
      const end = await run.result;
      if (this.#requeue(end)) continue;
      if (this.#parked !== undefined) {
        // The child is gone: nothing of it is kept while the node lies parked.
        this.#run = undefined;
        const ended = await this.#waitParked(this.#parked);
        if (ended !== undefined) return ended;
        continue;
      }
      if (!this.#options.payload.warm || end.via !== 'synthetic' || this.#stopped.signal.aborted)
        return end;
      const decision = this.#governor.onFailure(this.#options.now(), { beforeReady });
      if (!decision.restart)
        return {
          ...end,
          outcome: {
            ...end.outcome,
            reason: `${end.outcome.reason ?? 'crashed'}; ${decision.reason}`,
          },
        };
      this.#options.onRestart?.(
        this.#attempt + 1,
        decision.delayMs,
        end.outcome.reason ?? 'crashed',
      );
      await sleep(decision.delayMs, { signal: this.#stopped.signal });
      if (this.#isStopped()) return end;
    }
  }

  send(frame: ControlFrame): boolean {
    const sent = this.#run?.send(frame) ?? false;
    if (frame.type === 'inject')
      this.#unanswered.push({ message: frame.message, sentTo: sent ? this.#run : undefined });
    if (frame.type === 'cancel') this.#closing = { frame, sentTo: sent ? this.#run : undefined };
    return sent;
  }

  /**
   * Stops the node for good (no restart) through the kill ladder; `status` is what it ends with
   * when the stop decides (`cancelled` unless a deadline is the cause).
   */
  stop(
    reason: string,
    options: { force?: boolean; status?: 'cancelled' | 'deadline' } = {},
  ): Promise<LadderOutcome | undefined> {
    this.#stopStatus = options.status ?? 'cancelled';
    this.#stopped.abort(reason);
    // A parked node has no child to stop: it ends where it waits.
    if (this.#parked !== undefined) return Promise.resolve(undefined);
    return (
      this.#run?.stop(reason, {
        status: options.status ?? 'cancelled',
        force: options.force === true,
      }) ?? Promise.resolve(undefined)
    );
  }

  /** Whether the node is parked (its child gone, or going, while it waits). */
  get isParked(): boolean {
    return this.#parked !== undefined;
  }

  /**
   * Parks the node: its child is let go (killed at once: it only waits, and every step it made is
   * recorded), and the node waits without a process until `arrived` settles, its deadline passes
   * or it is stopped. `arrived` is asked for only when it parks. False when it cannot park now (no
   * child running, a warm session, stopped).
   */
  park(arrived: () => Promise<void>): boolean {
    const run = this.#run;
    if (run === undefined || this.#parked !== undefined || this.#isStopped()) return false;
    if (this.#options.payload.warm || this.#options.wakePayload === undefined) return false;
    this.#parked = { arrived: arrived() };
    void run.stop('parked: it only waits', { force: true, status: 'cancelled' });
    return true;
  }

  /**
   * A parked node waits, with no process, for what it waits on, its deadline or a stop. Woken, the
   * next attempt goes on from its transcript (undefined is returned); otherwise its end.
   */
  async #waitParked(parked: Parked): Promise<ChildEnd | undefined> {
    const deadlineMs = this.#options.payload.limits.deadline_ms;
    const now = this.#options.now;
    const left = (): number | undefined =>
      deadlineMs === undefined ? undefined : deadlineMs - (now() - (this.#startedAt ?? now()));
    const arrived = new AbortController();
    void parked.arrived.then(() => {
      arrived.abort();
    });
    const signal = AbortSignal.any([this.#stopped.signal, arrived.signal]);
    // A timer holds at most 2^31 − 1 ms: a longer wait (or none at all) is several.
    for (let ms = left(); !signal.aborted && (ms === undefined || ms > 0); ms = left())
      await sleep(Math.min(ms ?? MAX_TIMER_MS, MAX_TIMER_MS), { signal });
    arrived.abort();
    const remaining = left();
    const passed = remaining !== undefined && remaining <= 0;
    if (passed || this.#isStopped()) {
      const reason = passed
        ? `deadline of ${String(deadlineMs)} ms passed while it was parked`
        : String(this.#stopped.signal.reason ?? 'stopped while it was parked');
      return {
        outcome: outcomeOf(passed ? 'deadline' : this.#stopStatus, null, reason),
        via: 'synthetic',
        exit: { code: null, signal: null },
      };
    }
    this.#payload = this.#options.wakePayload?.(remaining) ?? this.#payload;
    this.#parked = undefined;
    this.#options.onWake?.();
    return undefined;
  }

  /**
   * Counts a turn of the current child. The first answers the instruction; each later one answers
   * the oldest inject. False for a restarted child's answer to the instruction: it was given
   * already, and is not heard again.
   */
  #countTurn(status: TerminalStatus): boolean {
    this.#turnsSeen += 1;
    if (this.#turnsSeen === 1 && !this.#answered) {
      const isRepeat = this.#instructionAnswered;
      this.#instructionAnswered = true;
      return !isRepeat;
    }
    this.#unanswered.shift();
    // Only answering a message proves a restarted child healthy again: a child that crashes on
    // the message it is given would otherwise reset its backoff every time.
    if (status === 'completed') this.#governor.onSuccess();
    return true;
  }

  /**
   * A close asked for while the child was down (or just before it died) goes to the restarted
   * child once it has caught up with every message it was given; lost, it would leave the
   * session open with nobody to close it, and sent at once it would cancel the catching up.
   */
  #closeIfCaughtUp(): void {
    const run = this.#run;
    const closing = this.#closing;
    if (run === undefined || closing === undefined || closing.sentTo === run) return;
    if ((this.#turnsSeen === 0 && !this.#answered) || this.#unanswered.length > 0) return;
    if (run.send(closing.frame)) closing.sentTo = run;
  }

  /**
   * Starts the node again when its machine was lost and attempts remain: true when it will. The
   * next attempt goes on from the node's recorded transcript.
   */
  #requeue(end: ChildEnd): boolean {
    const requeue = this.#options.requeue;
    const lost = end.exit.lost;
    if (requeue === undefined || lost === undefined || this.#isStopped()) return false;
    if (this.#attempt >= requeue.attempts) return false;
    this.#payload = requeue.payload();
    this.#options.onRequeue?.(this.#attempt + 1, lost);
    return true;
  }

  #isStopped(): boolean {
    return this.#stopped.signal.aborted;
  }

  #start(): ProcessRun {
    const { handlers } = this.#options;
    const payload = this.#payload;
    this.#startedAt ??= this.#options.now();
    this.#run = new ProcessRun(payload, {
      child: this.#options.startChild(payload, this.#attempt),
      timing: this.#options.timing,
      now: this.#options.now,
      handlers: {
        ...handlers,
        onFrame: (frame) => {
          const isHeard = frame.type !== 'turn' || this.#countTurn(frame.outcome.status);
          if (isHeard) handlers.onFrame?.(frame);
          if (frame.type === 'turn') this.#closeIfCaughtUp();
        },
      },
    });
    this.#turnsSeen = 0;
    return this.#run;
  }
}
