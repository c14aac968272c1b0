import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ARBOR_BIN } from './run-arbor.js';

/** Short liveness timings for end-to-end runs: fast to fail, still safe on a loaded machine. */
export const FAST_ENV: NodeJS.ProcessEnv = {
  ARBOR_PONG_TIMEOUT_MS: '1500',
  ARBOR_PROGRESS_TIMEOUT_MS: '10000',
  ARBOR_DEADLINE_GRACE_MS: '700',
  ARBOR_CANCEL_GRACE_MS: '700',
  ARBOR_TERM_GRACE_MS: '700',
  ARBOR_KILL_WAIT_MS: '2000',
  ARBOR_RESTART_BASE_MS: '50',
  ARBOR_RESTART_CAP_MS: '200',
};

/**
 * The environment that makes arbor SIGKILL itself at a kill point (`src/supervisor/launch/kill-points.ts`)
 * or a plan status (`plan.<status>:<id>`): the point, and the chaos test mode that lets it count.
 */
export function killAt(point: string): NodeJS.ProcessEnv {
  return { ARBOR_TEST_MODE: 'chaos', ARBOR_TEST_KILL_AT: point };
}

/** A fresh store path in a temp directory. */
export function tempDb(): string {
  return join(mkdtempSync(join(tmpdir(), 'arbor-e2e-')), 'arbor.db');
}

/** One NDJSON event line arbor wrote on stderr. */
export type EventLine = Record<string, unknown> & { event?: string; node_id?: string };

/**
 * The real `arbor` CLI running as a process, with helpers to await what it writes (its NDJSON
 * events on stderr, its answers on stdout), feed its stdin and signal it.
 */
export class ArborProcess {
  readonly child: ChildProcessWithoutNullStreams;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stdout = '';
  stderr = '';
  readonly events: EventLine[] = [];
  #waiters: (() => void)[] = [];

  /**
   * With `unreaped`, arbor runs under a parent that never reaps it (`sh`, then `sleep`), as a
   * crashed server may stay a zombie for a while: `child` is that parent, and arbor's own pid is
   * written first on stderr (`arbor pid N`). Killing `child` lets the zombie go.
   */
  constructor(
    args: string[],
    options: { env?: NodeJS.ProcessEnv; cwd?: string; unreaped?: boolean } = {},
  ) {
    const [command, argv] =
      options.unreaped === true
        ? [
            'sh',
            [
              '-c',
              '"$@" & echo "arbor pid $!" >&2; exec sleep 600',
              'sh',
              process.execPath,
              ARBOR_BIN,
              ...args,
            ],
          ]
        : [process.execPath, [ARBOR_BIN, ...args]];
    this.child = spawn(command, argv, {
      cwd: options.cwd,
      env: { ...process.env, ...FAST_ENV, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child.stdout.setEncoding('utf8');
    this.child.stderr.setEncoding('utf8');
    this.child.stdout.on('data', (chunk: string) => {
      this.stdout += chunk;
      this.#wake();
    });
    let pending = '';
    this.child.stderr.on('data', (chunk: string) => {
      this.stderr += chunk;
      const lines = (pending + chunk).split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        if (line.startsWith('{')) {
          try {
            this.events.push(JSON.parse(line) as EventLine);
          } catch {
            // Not an event line.
          }
        }
      }
      this.#wake();
    });
    this.child.stdin.on('error', () => undefined);
    this.exited = new Promise((resolve) => {
      this.child.on('close', (code, signal) => {
        this.#wake();
        resolve({ code, signal });
      });
    });
  }

  /** Resolves with the first event that matches, waiting for it to arrive. */
  async waitForEvent(
    event: string,
    match: (line: EventLine) => boolean = () => true,
  ): Promise<EventLine> {
    for (;;) {
      const found = this.events.find((line) => line.event === event && match(line));
      if (found !== undefined) return found;
      if (this.child.exitCode !== null || this.child.signalCode !== null) {
        throw new Error(`arbor exited before event ${event}; stderr:\n${this.stderr}`);
      }
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }

  /** Resolves once stdout holds `lines` complete lines. */
  async waitForStdoutLines(lines: number): Promise<string[]> {
    for (;;) {
      const complete = this.stdout.split('\n').slice(0, -1);
      if (complete.length >= lines) return complete;
      if (this.child.exitCode !== null)
        throw new Error(`arbor exited with ${complete.length} lines; stderr:\n${this.stderr}`);
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }

  /** Resolves with the first match of `pattern` in stderr, waiting for it to be written. */
  async waitForStderr(pattern: RegExp): Promise<RegExpExecArray> {
    for (;;) {
      const found = pattern.exec(this.stderr);
      if (found !== null) return found;
      if (this.child.exitCode !== null || this.child.signalCode !== null)
        throw new Error(`arbor exited before writing ${String(pattern)}; stderr:\n${this.stderr}`);
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }

  /** Resolves once `check` holds, looking again whenever the process writes something. */
  async waitUntil(check: () => boolean, what = 'a condition'): Promise<void> {
    for (;;) {
      if (check()) return;
      if (this.child.exitCode !== null || this.child.signalCode !== null)
        throw new Error(`arbor exited before ${what}; stderr:\n${this.stderr}`);
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }

  writeLine(text: string): void {
    this.child.stdin.write(`${text}\n`);
  }

  endInput(): void {
    this.child.stdin.end();
  }

  signal(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }

  #wake(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }
}

/** Whether a process id is alive. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
