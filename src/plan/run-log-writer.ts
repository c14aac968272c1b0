import type { Plan } from './plan.js';
import { writePlanAtomic } from './plan-file.js';

interface Waiter {
  version: number;
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * Keeps a run-log current without making the scheduler wait on the disk: every `update()` is
 * followed by an atomic rewrite that includes it. Transitions that arrive while a rewrite is under
 * way are batched into the next one, so a plan of 10,000 leaves costs a few dozen rewrites, not
 * 20,000, and a plan of slow leaves still gets one rewrite per transition.
 */
export class RunLogWriter {
  readonly #file: string;
  readonly #plan: Plan;
  #version = 0;
  #written = 0;
  #writing = false;
  #waiters: Waiter[] = [];

  readonly #onWrite: ((text: string) => void) | undefined;

  /** `onWrite` is told each text just before it replaces the file (to record its digest, say). */
  constructor(file: string, plan: Plan, onWrite?: (text: string) => void) {
    this.#file = file;
    this.#plan = plan;
    this.#onWrite = onWrite;
  }

  /** Marks the plan changed; resolves once a rewrite holding this change is on disk. */
  update(): Promise<void> {
    this.#version += 1;
    const settled = this.#until(this.#version);
    void this.#drain();
    return settled;
  }

  /** Resolves once everything changed so far is on disk; rejects if that write failed. */
  flush(): Promise<void> {
    const settled = this.#until(this.#version);
    void this.#drain();
    return settled;
  }

  #until(version: number): Promise<void> {
    if (this.#written >= version) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.#waiters.push({ version, resolve, reject });
    });
  }

  async #drain(): Promise<void> {
    if (this.#writing) return;
    this.#writing = true;
    try {
      while (this.#written < this.#version) {
        // The plan is serialized synchronously when the write starts: it holds this version.
        const version = this.#version;
        await writePlanAtomic(this.#file, this.#plan, { beforeRename: this.#onWrite });
        this.#written = version;
        const ready = this.#waiters.filter((w) => w.version <= version);
        this.#waiters = this.#waiters.filter((w) => w.version > version);
        for (const waiter of ready) waiter.resolve();
      }
    } catch (error) {
      for (const waiter of this.#waiters.splice(0)) waiter.reject(error);
    } finally {
      this.#writing = false;
    }
  }
}
