import { CHILD_POOLED_ENV, CHILD_WAITING_MSG } from '../child/pool-signals.js';
import type { ChildCommand } from './child-entry.js';
import { ChildProcess } from './child-process.js';

const REPLENISH_DELAY_MS = 20;

interface Idle {
  child: ChildProcess;
  waiting: boolean;
}

/**
 * A few children started ahead of time, loaded and waiting for a payload. Taking one skips the
 * cost of starting Node and loading arbor, which dominates spawn → `ready`. Children in the pool
 * carry no payload and no secret; they exit when their input closes, so a dead supervisor leaves
 * none behind.
 */
export class ChildPool {
  readonly #command: ChildCommand;
  readonly #env: NodeJS.ProcessEnv;
  readonly #size: number;
  readonly #cwd: string | undefined;
  readonly #idle: Idle[] = [];
  #closed = false;

  constructor(options: {
    command: ChildCommand;
    env: NodeJS.ProcessEnv;
    size: number;
    /** Where the children start (default: this process's directory). */
    cwd?: string;
  }) {
    this.#command = options.command;
    this.#env = options.env;
    this.#size = options.size;
    this.#cwd = options.cwd;
    for (let i = 0; i < this.#size; i++) this.#startOne();
  }

  /** Idle children loaded and waiting. */
  get available(): number {
    return this.#idle.filter((idle) => idle.waiting && !idle.child.hasExited()).length;
  }

  /** Resolves once every slot holds a loaded child. */
  async whenFull(): Promise<void> {
    while (!this.#closed && this.available < this.#size)
      await new Promise((resolve) => setTimeout(resolve, 5));
  }

  /** Takes a loaded idle child, if one is waiting, and starts a replacement. */
  take(): ChildProcess | undefined {
    const index = this.#idle.findIndex((idle) => idle.waiting && !idle.child.hasExited());
    if (index === -1) return undefined;
    const [idle] = this.#idle.splice(index, 1);
    // Replace it a little later: starting a process blocks this thread for a few milliseconds,
    // which the child just taken would otherwise wait out before it gets its payload.
    setTimeout(() => {
      if (!this.#closed) this.#startOne();
    }, REPLENISH_DELAY_MS);
    return idle?.child;
  }

  /** Stops every idle child. */
  close(): void {
    this.#closed = true;
    for (const idle of this.#idle.splice(0)) {
      idle.child.closeInput();
      idle.child.signalGroup('SIGTERM');
    }
  }

  #startOne(): void {
    const child = new ChildProcess({
      command: this.#command.command,
      args: this.#command.args,
      env: { ...this.#env, [CHILD_POOLED_ENV]: '1' },
      ...(this.#cwd === undefined ? {} : { cwd: this.#cwd }),
    });
    const idle: Idle = { child, waiting: false };
    child.attach({
      onFrame: () => undefined,
      onViolation: () => undefined,
      onStderr: (line) => {
        if (line.includes(CHILD_WAITING_MSG)) idle.waiting = true;
      },
    });
    void child.exited.then(() => {
      const at = this.#idle.indexOf(idle);
      if (at !== -1) this.#idle.splice(at, 1);
    });
    this.#idle.push(idle);
  }
}
