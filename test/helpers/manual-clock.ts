import type { Clock } from '../../src/intel/index.js';

interface Timer {
  id: number;
  at: number;
  ms: number;
  callback: () => void;
}

export interface PendingTimer {
  at: number;
  ms: number;
}

/**
 * A clock that moves only when the test says so. Timers fire in time order during `advance`;
 * `waitForTimer` lets a test await the moment the code under test starts waiting, instead of
 * sleeping. `autoAdvance` fires matching timers as soon as they are set (jumping the clock), for
 * tests that want backoffs to pass without being driven one by one.
 */
export class ManualClock implements Clock {
  #now: number;
  #nextId = 1;
  #timers: Timer[] = [];
  #watchers: { match: (t: PendingTimer) => boolean; resolve: (t: PendingTimer) => void }[] = [];
  #auto: ((t: PendingTimer) => boolean) | undefined;
  /** The duration of every timer ever set, in order. */
  readonly requested: number[] = [];

  constructor(start = 1_700_000_000_000) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  setTimer(callback: () => void, ms: number): () => void {
    const timer: Timer = { id: this.#nextId++, at: this.#now + ms, ms, callback };
    this.#timers.push(timer);
    this.requested.push(ms);
    const view = { at: timer.at, ms };
    for (const watcher of this.#watchers.filter((w) => w.match(view))) {
      this.#watchers.splice(this.#watchers.indexOf(watcher), 1);
      watcher.resolve(view);
    }
    if (this.#auto?.(view) === true) {
      setImmediate(() => {
        if (this.#timers.includes(timer)) this.advanceTo(Math.max(this.#now, timer.at));
      });
    }
    return () => {
      this.#timers = this.#timers.filter((t) => t !== timer);
    };
  }

  /** Timers set and not yet fired or cancelled. */
  get pending(): PendingTimer[] {
    return this.#timers.map(({ at, ms }) => ({ at, ms }));
  }

  advance(ms: number): void {
    this.advanceTo(this.#now + ms);
  }

  /** Moves the clock to `at`, firing every timer due by then in time order. */
  advanceTo(at: number): void {
    for (;;) {
      const due = this.#timers
        .filter((t) => t.at <= at)
        .sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (due === undefined) break;
      this.#timers = this.#timers.filter((t) => t !== due);
      this.#now = Math.max(this.#now, due.at);
      due.callback();
    }
    this.#now = Math.max(this.#now, at);
  }

  /** Resolves with the first pending or future timer that matches. */
  waitForTimer(match: (t: PendingTimer) => boolean = () => true): Promise<PendingTimer> {
    const existing = this.pending.find(match);
    if (existing !== undefined) return Promise.resolve(existing);
    return new Promise((resolve) => this.#watchers.push({ match, resolve }));
  }

  autoAdvance(match: ((t: PendingTimer) => boolean) | undefined): void {
    this.#auto = match;
    if (match === undefined) return;
    for (const timer of this.#timers.filter((t) => match({ at: t.at, ms: t.ms }))) {
      setImmediate(() => {
        if (this.#timers.includes(timer)) this.advanceTo(Math.max(this.#now, timer.at));
      });
    }
  }
}
