import type { Readable } from 'node:stream';
import {
  ArborError,
  createFrameReader,
  describeViolation,
  type ControlFrame,
  type DecodeResult,
  type SpawnPayload,
} from '../protocol/index.js';
import type { FrameWriter } from './frame-writer.js';
import { Hold } from './hold.js';
import { InjectQueue } from './inject-queue.js';
import type { Logger } from './logger.js';
import { ReplySlots } from './reply-slots.js';

type ToolResultFrame = Extract<ControlFrame, { type: 'tool_result' }>;
type BudgetGrantFrame = Extract<ControlFrame, { type: 'budget_grant' }>;
type SwapIntelFrame = Extract<ControlFrame, { type: 'swap_intel' }>;

/**
 * The child's side of the control channel: it reads stdin on its own, independent of whatever the
 * agent loop is awaiting, so `ping` is answered at once even during a long model call. Everything
 * else is turned into state the loop reads at its boundaries: the cancel signal, the pause hold,
 * the inject queue, a parked swap, and reply slots for requests made to the supervisor.
 */
export class ControlChannel {
  readonly #writer: FrameWriter;
  readonly #log: Logger;
  readonly #cancel = new AbortController();
  readonly #spawn: Promise<SpawnPayload>;
  #resolveSpawn!: (payload: SpawnPayload) => void;
  #rejectSpawn!: (error: ArborError) => void;
  #gotSpawn = false;
  #swap: SwapIntelFrame | undefined;
  #swapListeners: (() => void)[] = [];
  #ended = false;
  readonly #endedPromise: Promise<void>;
  readonly hold = new Hold();
  readonly injects = new InjectQueue();
  readonly toolReplies = new ReplySlots<ToolResultFrame>();
  readonly budgetReplies = new ReplySlots<BudgetGrantFrame>();

  constructor(input: Readable, writer: FrameWriter, log: Logger) {
    this.#writer = writer;
    this.#log = log;
    this.#spawn = new Promise((resolve, reject) => {
      this.#resolveSpawn = resolve;
      this.#rejectSpawn = reject;
    });
    // Callers that never await the first frame must not see an unhandled rejection.
    this.#spawn.catch(() => undefined);
    const reader = createFrameReader('down');
    input.on('data', (chunk: Buffer) => {
      for (const result of reader.push(chunk)) this.#dispatch(result);
    });
    this.#endedPromise = new Promise((resolve) => {
      const end = (): void => {
        for (const result of reader.end()) this.#dispatch(result);
        this.#onEnd();
        resolve();
      };
      input.once('end', end);
      input.once('close', end);
      input.once('error', end);
    });
  }

  /** The payload from the first frame; rejects if the first frame is not a valid `spawn`. */
  get spawn(): Promise<SpawnPayload> {
    return this.#spawn;
  }

  /** Fires on a `cancel` frame, and when the control channel closes. */
  get signal(): AbortSignal {
    return this.#cancel.signal;
  }

  /** True once stdin has closed: the supervisor is gone or done with this child. */
  get ended(): boolean {
    return this.#ended;
  }

  /** Resolves when stdin closes. */
  whenEnded(): Promise<void> {
    return this.#endedPromise;
  }

  /** Takes the swap parked since the last boundary, if any. */
  takeSwap(): SwapIntelFrame | undefined {
    const swap = this.#swap;
    this.#swap = undefined;
    return swap;
  }

  /** Calls `listener` when a swap is parked (so a turn can notice a restart-turn swap). */
  onSwap(listener: () => void): void {
    this.#swapListeners.push(listener);
  }

  get hasSwap(): boolean {
    return this.#swap !== undefined;
  }

  #dispatch(result: DecodeResult<ControlFrame>): void {
    if (!result.ok) {
      const error = new ArborError(
        'protocol_violation',
        `control channel: ${describeViolation(result.violation)}`,
        {
          details: { ...result.violation },
        },
      );
      this.#log.log('warn', 'protocol.violation', {
        code: result.violation.code,
        line: result.violation.line,
        reason: result.violation.reason,
      });
      if (!this.#gotSpawn) {
        this.#gotSpawn = true;
        this.#rejectSpawn(error);
      }
      return;
    }
    const frame = result.frame;
    if (!this.#gotSpawn) {
      this.#gotSpawn = true;
      if (frame.type === 'spawn') this.#resolveSpawn(frame.payload);
      else
        this.#rejectSpawn(
          new ArborError(
            'protocol_violation',
            `expected \`spawn\` as the first frame, got \`${frame.type}\``,
          ),
        );
      return;
    }
    this.#handle(frame);
  }

  #handle(frame: ControlFrame): void {
    switch (frame.type) {
      case 'spawn':
        this.#log.log('warn', 'ignoring a second spawn frame');
        return;
      case 'ping':
        this.#writer.send({ type: 'pong', seq: frame.seq });
        return;
      case 'pause':
        this.hold.pause();
        return;
      case 'resume':
        this.hold.resume();
        return;
      case 'cancel':
        this.#cancel.abort(frame.reason);
        return;
      case 'inject':
        this.injects.push(frame.message);
        return;
      case 'swap_intel':
        this.#swap = frame;
        for (const listener of this.#swapListeners) listener();
        return;
      case 'tool_result':
        if (!this.toolReplies.settle(frame.id, frame))
          this.#log.log('warn', 'tool_result for no waiting request', { id: frame.id });
        return;
      case 'budget_grant':
        if (!this.budgetReplies.settle(frame.id, frame))
          this.#log.log('warn', 'budget_grant for no waiting request', { id: frame.id });
        return;
      default: {
        const never: never = frame;
        this.#log.log('warn', 'unhandled control frame', { frame: never });
      }
    }
  }

  #onEnd(): void {
    if (this.#ended) return;
    this.#ended = true;
    if (!this.#gotSpawn) {
      this.#gotSpawn = true;
      this.#rejectSpawn(
        new ArborError('protocol_violation', 'stdin closed before the `spawn` frame'),
      );
    }
    this.injects.close();
    this.toolReplies.closeAll('the control channel closed');
    this.budgetReplies.closeAll('the control channel closed');
    this.hold.resume();
    if (!this.#cancel.signal.aborted) this.#cancel.abort('the control channel closed');
  }
}
