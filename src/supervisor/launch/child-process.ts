import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createFrameReader, encodeFrame, type ControlFrame } from '../../protocol/index.js';
import { withSealedStdio } from '../../tools/index.js';
import {
  OutputRelay,
  type ChildHandle,
  type ChildListeners,
  type ProcessExit,
} from './child-handle.js';

export interface ChildProcessOptions {
  /** The program and arguments that start a child (see `childCommand`). */
  command: string;
  args: readonly string[];
  env: NodeJS.ProcessEnv;
  cwd?: string;
  /** How many of the last stderr lines to keep for error reports (default 20). */
  stderrTail?: number;
  /** Started for a pool of idle children. */
  pooled?: boolean;
}

/** Longest stderr line kept; the rest of a longer line is dropped. */
const MAX_STDERR_LINE_CHARS = 8 * 1024;

/**
 * One child OS process speaking protocol v1: its own process group (so the whole subtree can be
 * signalled at once), control frames down its stdin, agent frames up its stdout, logs on its
 * stderr, and no other descriptor of this process (`withSealedStdio`). `exited` resolves only after stdout has been read to its end, so every frame a child
 * wrote is processed before its exit is.
 */
export class ChildProcess implements ChildHandle {
  readonly #process: ChildProcessWithoutNullStreams;
  readonly #tail: string[] = [];
  readonly #tailSize: number;
  readonly exited: Promise<ProcessExit>;
  readonly pooled: boolean;
  #exit: ProcessExit | undefined;
  readonly #output = new OutputRelay();
  /** Output that arrived before anyone attached (a pooled child's start-up logs). */

  /**
   * Starts the process. Its output is held until `attach` names where it goes, so a child can be
   * started ahead of time (a pool of idle children) and handed a payload later.
   */
  constructor(options: ChildProcessOptions) {
    this.#tailSize = options.stderrTail ?? 20;
    this.pooled = options.pooled === true;
    this.#process = withSealedStdio(['pipe', 'pipe', 'pipe'], (stdio) =>
      spawn(options.command, options.args, {
        cwd: options.cwd,
        env: options.env,
        stdio,
        detached: true,
      }),
    );
    const reader = createFrameReader('up');
    this.#process.stdout.on('data', (chunk: Buffer) => {
      for (const result of reader.push(chunk)) {
        this.#output.emit(
          result.ok
            ? { kind: 'frame', frame: result.frame }
            : { kind: 'violation', violation: result.violation },
        );
      }
    });
    this.#process.stdout.on('end', () => {
      for (const result of reader.end()) {
        this.#output.emit(
          result.ok
            ? { kind: 'frame', frame: result.frame }
            : { kind: 'violation', violation: result.violation },
        );
      }
    });
    let pending = '';
    this.#process.stderr.setEncoding('utf8');
    this.#process.stderr.on('data', (chunk: string) => {
      const lines = (pending + chunk).split('\n');
      pending = lines.pop() ?? '';
      // A line that never ends is cut, not held whole: stderr is not bounded by the frame cap.
      if (pending.length > MAX_STDERR_LINE_CHARS) {
        lines.push(pending.slice(0, MAX_STDERR_LINE_CHARS));
        pending = '';
      }
      for (const line of lines) this.#stderrLine(line.slice(0, MAX_STDERR_LINE_CHARS));
    });
    this.#process.stderr.on('end', () => {
      if (pending !== '') this.#stderrLine(pending);
    });
    // A child that dies leaves a broken pipe; writing to it must not crash the supervisor.
    this.#process.stdin.on('error', () => undefined);
    this.exited = new Promise((resolve) => {
      this.#process.once('error', (error) => {
        // 'close' may never follow a failed spawn.
        if (this.#process.pid === undefined)
          this.#settle({ code: null, signal: null, error }, resolve);
      });
      this.#process.once('close', (code, signal) => {
        this.#settle({ code, signal }, resolve);
      });
    });
  }

  /** Routes the child's output (and anything it wrote before this call) to `listeners`. */
  attach(listeners: ChildListeners): void {
    this.#output.attach(listeners);
  }

  get pid(): number | undefined {
    return this.#process.pid;
  }

  hasExited(): boolean {
    return this.#exit !== undefined;
  }

  /** The last lines the child wrote to stderr. */
  stderrTail(): string[] {
    return [...this.#tail];
  }

  /** Writes a control frame; false when the child's stdin is gone. */
  send(frame: ControlFrame): boolean {
    const stdin = this.#process.stdin;
    if (stdin.destroyed || stdin.writableEnded || this.#exit !== undefined) return false;
    stdin.write(encodeFrame(frame));
    return true;
  }

  /** Closes the child's stdin: it exits when it sees the end of its input. */
  closeInput(): void {
    if (!this.#process.stdin.destroyed) this.#process.stdin.end();
  }

  /** Signals the child's process group (the child and anything it started). */
  signalGroup(signal: 'SIGTERM' | 'SIGKILL'): void {
    const pid = this.#process.pid;
    if (pid === undefined || this.#exit !== undefined) return;
    try {
      process.kill(-pid, signal);
    } catch {
      // The group is already gone.
    }
  }

  #stderrLine(line: string): void {
    if (line === '') return;
    this.#tail.push(line);
    if (this.#tail.length > this.#tailSize) this.#tail.shift();
    this.#output.emit({ kind: 'stderr', line });
  }

  #settle(exit: ProcessExit, resolve: (exit: ProcessExit) => void): void {
    if (this.#exit !== undefined) return;
    this.#exit = exit;
    resolve(exit);
  }
}
