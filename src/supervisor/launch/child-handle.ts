import type { AgentFrame, ControlFrame, ProtocolViolation } from '../../protocol/index.js';

export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Set when the child could not be started at all. */
  error?: Error;
  /**
   * Set when the machine running the child was lost (a fleet worker that died or handed the
   * node back): the node may be queued again for another worker, from its recorded transcript.
   */
  lost?: string;
}

/** Where a child's output goes once someone supervises it. */
export interface ChildListeners {
  /** Frames the child wrote, in order. */
  onFrame(frame: AgentFrame): void;
  onViolation(violation: ProtocolViolation): void;
  /** Each complete line of the child's log. */
  onStderr?(line: string): void;
}

/** One piece of a child's output, in the order it wrote them. */
export type ChildOutput =
  | { kind: 'frame'; frame: AgentFrame }
  | { kind: 'violation'; violation: ProtocolViolation }
  | { kind: 'stderr'; line: string };

/**
 * Where a child handle puts its output: held until someone attaches, then passed on in order, the
 * held pieces first.
 */
export class OutputRelay {
  #listeners: ChildListeners | undefined;
  #early: ChildOutput[] = [];

  attach(listeners: ChildListeners): void {
    this.#listeners = listeners;
    const early = this.#early;
    this.#early = [];
    for (const output of early) this.emit(output);
  }

  /** Passes nothing more on: a child abandoned at SIGKILL says nothing after it. */
  silence(): void {
    this.#listeners = { onFrame: () => undefined, onViolation: () => undefined };
    this.#early = [];
  }

  emit(output: ChildOutput): void {
    const listeners = this.#listeners;
    if (listeners === undefined) {
      this.#early.push(output);
      return;
    }
    if (output.kind === 'frame') listeners.onFrame(output.frame);
    else if (output.kind === 'violation') listeners.onViolation(output.violation);
    else listeners.onStderr?.(output.line);
  }
}

/**
 * The running side of a node, whatever runs it: an OS process (`process` provider) or an agent in
 * this process behind an in-memory channel (`spawn`, `fork`). Both speak protocol v1, so the same
 * supervision — liveness, kill ladder, synthetic outcomes — applies to every provider.
 */
export interface ChildHandle {
  /** The OS process id, for a process child. */
  readonly pid: number | undefined;
  /** True for a process child that was started ahead of time, in a pool, and taken from it. */
  readonly pooled?: boolean;
  /** Resolves once the child has ended and every frame it wrote has been delivered. */
  readonly exited: Promise<ProcessExit>;
  hasExited(): boolean;
  /** Routes the child's output (and anything it wrote before this call) to `listeners`. */
  attach(listeners: ChildListeners): void;
  /** Sends a control frame; false when the child's input is gone. */
  send(frame: ControlFrame): boolean;
  /** Closes the child's input: it winds down when it sees the end. */
  closeInput(): void;
  /**
   * SIGTERM asks the child to stop (a process group is signalled; an in-process child sees its
   * input end); SIGKILL ends it at once (an in-process child is abandoned and reported exited).
   */
  signalGroup(signal: 'SIGTERM' | 'SIGKILL'): void;
  /** The last lines of the child's log, for error reports. */
  stderrTail(): string[];
}
