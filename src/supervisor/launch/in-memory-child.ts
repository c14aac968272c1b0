import { PassThrough } from 'node:stream';
import { runChild, type ChildDeps, type ChildIo } from '../../child/index.js';
import { createFrameReader, encodeFrame, type ControlFrame } from '../../protocol/index.js';
import {
  OutputRelay,
  type ChildHandle,
  type ChildListeners,
  type ProcessExit,
} from './child-handle.js';

/**
 * A child agent running in this process, behind an in-memory channel. It runs the very code a
 * process child runs (`runChild`), over stream pairs instead of pipes, so it speaks protocol v1
 * and gets the same supervision, gates and records — without the cost of starting a process.
 *
 * What it cannot have is the isolation of a process: it shares this process's memory and CPU, and
 * SIGKILL can only abandon it (the supervisor stops listening and reports it exited; the agent
 * notices its closed input and winds down on its own).
 */
export class InMemoryChild implements ChildHandle {
  readonly pid = undefined;
  readonly exited: Promise<ProcessExit>;
  readonly #stdin = new PassThrough();
  readonly #tail: string[] = [];
  readonly #output = new OutputRelay();
  #exit: ProcessExit | undefined;
  #abandon!: (exit: ProcessExit) => void;

  /** `body` is what the child runs: arbor's own child (`runChild`) unless another is given. */
  constructor(deps: ChildDeps, body: (io: ChildIo, deps: ChildDeps) => Promise<number> = runChild) {
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    const reader = createFrameReader('up');
    stdout.on('data', (chunk: Buffer) => {
      for (const result of reader.push(chunk)) {
        this.#output.emit(
          result.ok
            ? { kind: 'frame', frame: result.frame }
            : { kind: 'violation', violation: result.violation },
        );
      }
    });
    let pending = '';
    stderr.setEncoding('utf8');
    stderr.on('data', (chunk: string) => {
      const lines = (pending + chunk).split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) this.#stderrLine(line);
    });
    const finished = body({ stdin: this.#stdin, stdout, stderr }, deps).then(
      (code): ProcessExit => ({ code, signal: null }),
      (error: unknown): ProcessExit => ({
        code: 1,
        signal: null,
        error: error instanceof Error ? error : new Error(String(error)),
      }),
    );
    const abandoned = new Promise<ProcessExit>((resolve) => {
      this.#abandon = resolve;
    });
    this.exited = Promise.race([finished, abandoned]).then((exit) => {
      // Frames written just before the end are already in the readers: every write to a
      // PassThrough is delivered synchronously to its 'data' listener.
      this.#exit = exit;
      return exit;
    });
  }

  hasExited(): boolean {
    return this.#exit !== undefined;
  }

  attach(listeners: ChildListeners): void {
    this.#output.attach(listeners);
  }

  send(frame: ControlFrame): boolean {
    if (this.#exit !== undefined || this.#stdin.writableEnded) return false;
    this.#stdin.write(encodeFrame(frame));
    return true;
  }

  closeInput(): void {
    if (!this.#stdin.writableEnded) this.#stdin.end();
  }

  signalGroup(signal: 'SIGTERM' | 'SIGKILL'): void {
    if (this.#exit !== undefined) return;
    this.closeInput();
    if (signal === 'SIGKILL') {
      this.#output.silence();
      this.#abandon({ code: null, signal: 'SIGKILL' });
    }
  }

  stderrTail(): string[] {
    return [...this.#tail];
  }

  #stderrLine(line: string): void {
    if (line === '') return;
    this.#tail.push(line);
    if (this.#tail.length > 20) this.#tail.shift();
    this.#output.emit({ kind: 'stderr', line });
  }
}
