import { CHILD_POOLED_ENV, CHILD_WAITING_MSG } from '../../child/pool-signals.js';
import type { ChildCommand } from './child-entry.js';
import { ChildProcess } from './child-process.js';
import { sleep } from '../sleep.js';

const REPLENISH_DELAY_MS = 20;
/** How far back takes count as demand. */
const DEFAULT_DEMAND_WINDOW_MS = 30_000;

interface Idle {
  child: ChildProcess;
  waiting: boolean;
}

export interface ChildPoolOptions {
  /**
   * How a child is started (see `resolveChildCommand`); a promise when it is still being worked
   * out: the pool starts children once it resolves, and none if it fails.
   */
  command: ChildCommand | Promise<ChildCommand>;
  env: NodeJS.ProcessEnv;
  /** Children kept loaded and waiting at all times (the floor; default 0). */
  size: number;
  /**
   * The most children kept waiting when demand is high (default `size`: a fixed pool). Between
   * the two the pool keeps as many as were taken in the last `demandWindowMs`.
   */
  max?: number;
  /** How far back a take counts as demand (default 30 s); idle children above it are stopped. */
  demandWindowMs?: number;
  /** Where the children start (default: this process's directory). */
  cwd?: string;
}

/**
 * Children started ahead of time, loaded and waiting for a payload. Taking one skips the cost of
 * starting Node and loading arbor, which dominates spawn → `ready`. Children in the pool carry no
 * payload and no secret; they exit when their input closes, so a dead supervisor leaves none
 * behind.
 *
 * The pool sizes itself to demand: every take (found or not) counts, and the pool keeps as many
 * children waiting as were taken in the last window, between `size` and `max`; children no longer
 * wanted are stopped once demand falls. Children are started one at a time, each once the one
 * before it is loaded, so refilling the pool never takes more than one core from the work that
 * emptied it. They run at the same priority as every other child: a handed-out child could not
 * raise a lowered priority again.
 */
export class ChildPool {
  #command: ChildCommand | undefined;
  readonly #env: NodeJS.ProcessEnv;
  readonly #size: number;
  readonly #max: number;
  readonly #window: number;
  readonly #cwd: string | undefined;
  readonly #idle: Idle[] = [];
  /** When each take in the window happened, oldest first. */
  readonly #takes: number[] = [];
  #starting = false;
  #refillTimer: NodeJS.Timeout | undefined;
  #shrinkTimer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(options: ChildPoolOptions) {
    this.#env = options.env;
    this.#size = options.size;
    this.#max = Math.max(options.max ?? options.size, options.size);
    this.#window = options.demandWindowMs ?? DEFAULT_DEMAND_WINDOW_MS;
    this.#cwd = options.cwd;
    if ('then' in options.command) {
      options.command.then(
        (command) => {
          this.#command = command;
          this.#refill();
        },
        () => {
          this.close();
        },
      );
    } else {
      this.#command = options.command;
      this.#refill();
    }
  }

  /** Idle children loaded and waiting. */
  get available(): number {
    return this.#idle.filter((idle) => idle.waiting && !idle.child.hasExited()).length;
  }

  /** Children the pool holds, loaded or still starting. */
  get held(): number {
    return this.#idle.length;
  }

  /** How many children the pool wants now: recent takes, between its floor and its ceiling. */
  get target(): number {
    this.#forgetOldTakes(Date.now());
    return Math.min(this.#max, Math.max(this.#size, this.#takes.length));
  }

  /** Resolves once the pool holds as many loaded children as it wants. */
  async whenFull(): Promise<void> {
    while (!this.#closed && this.available < this.target) await sleep(5);
  }

  /**
   * Takes a loaded idle child, if one is waiting. Either way the take counts as demand, and the
   * pool starts refilling a little later.
   */
  take(): ChildProcess | undefined {
    if (this.#closed) return undefined;
    this.#takes.push(Date.now());
    const index = this.#idle.findIndex((idle) => idle.waiting && !idle.child.hasExited());
    const [idle] = index === -1 ? [] : this.#idle.splice(index, 1);
    // Refill a little later: starting a process blocks this thread for a few milliseconds, which
    // the child just taken would otherwise wait out before it gets its payload.
    this.#refillTimer ??= setTimeout(() => {
      this.#refillTimer = undefined;
      this.#refill();
    }, REPLENISH_DELAY_MS);
    this.#scheduleShrink();
    return idle?.child;
  }

  /** Stops every idle child. */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#refillTimer);
    clearTimeout(this.#shrinkTimer);
    for (const idle of this.#idle.splice(0)) this.#stop(idle);
  }

  /** Starts the next child when the pool holds fewer than it wants and none is starting. */
  #refill(): void {
    const command = this.#command;
    if (command === undefined || this.#closed || this.#starting) return;
    if (this.#idle.length >= this.target) return;
    this.#starting = true;
    this.#startOne(command);
  }

  /** Once demand has had time to fall, stops the idle children the pool no longer wants. */
  #scheduleShrink(): void {
    if (this.#shrinkTimer !== undefined || this.#closed) return;
    this.#shrinkTimer = setTimeout(() => {
      this.#shrinkTimer = undefined;
      this.#shrink();
    }, this.#window);
    this.#shrinkTimer.unref();
  }

  #shrink(): void {
    if (this.#closed) return;
    const target = this.target;
    // Children still starting go last: the loaded ones have cost all they will.
    while (this.#idle.length > target) {
      const at = this.#idle.findIndex((idle) => !idle.waiting);
      const [idle] = this.#idle.splice(at === -1 ? 0 : at, 1);
      if (idle !== undefined) this.#stop(idle);
    }
    if (this.#takes.length > 0) this.#scheduleShrink();
  }

  #forgetOldTakes(now: number): void {
    while (this.#takes.length > 0 && now - (this.#takes[0] ?? now) > this.#window)
      this.#takes.shift();
  }

  #stop(idle: Idle): void {
    idle.child.closeInput();
    idle.child.signalGroup('SIGTERM');
  }

  /**
   * Starts a child; once it is loaded, the next one may start. A child that died before it loaded
   * is not replaced until the next take, nor one that died while it waited: a command that cannot
   * start, or a child that cannot stay up, must not be started again and again.
   */
  #startOne(command: ChildCommand): void {
    const child = new ChildProcess({
      command: command.command,
      args: command.args,
      env: { ...this.#env, [CHILD_POOLED_ENV]: '1' },
      pooled: true,
      ...(this.#cwd === undefined ? {} : { cwd: this.#cwd }),
    });
    const idle: Idle = { child, waiting: false };
    child.attach({
      onFrame: () => undefined,
      onViolation: () => undefined,
      onStderr: (line) => {
        if (!idle.waiting && line.includes(CHILD_WAITING_MSG)) {
          idle.waiting = true;
          this.#starting = false;
          this.#refill();
        }
      },
    });
    void child.exited.then(() => {
      if (!idle.waiting) this.#starting = false;
      const at = this.#idle.indexOf(idle);
      if (at !== -1) this.#idle.splice(at, 1);
    });
    this.#idle.push(idle);
  }
}
