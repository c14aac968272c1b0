import { setTimeout as sleep } from 'node:timers/promises';
import type { RunEventBodyOf } from '../../protocol/index.js';
import type { Admitted, Refused, SpawnWait } from './spawn-chokepoint.js';
import type { TreeNode } from '../tree.js';

/** One spawn's turn at the chokepoint, and what it may wait on. */
export interface QueuedSpawn<T extends { ok: true } = Admitted> {
  /** Runs the chokepoint once (and starts the child when admitted); called again after each wait. */
  admit(): T | Refused;
  /** When the caller's own deadline passes (epoch ms): no wait may run past it. */
  deadlineAt: number | undefined;
  /** Resolves when one of the caller's running children ends (a breadth slot frees up). */
  childEnded(): Promise<unknown>;
  /** The caller stopped: the wait ends and the spawn is refused. */
  signal: AbortSignal;
  /** The spawn starts to wait (`waiting` of the run's spawns wait now, this one included). */
  onWait(wait: SpawnWait, reason: string, waiting: number): void;
  /** The wait is over, admitted or not, after `waitedMs`. */
  onWaited(wait: SpawnWait, waitedMs: number): void;
}

/**
 * Where spawns over the spawn rate, or over their caller's breadth while its other children run,
 * wait instead of being refused: until a token comes (rate) or one of the caller's children ends
 * (breadth), then they go through the chokepoint again. A wait is bounded: a spawn is refused when
 * the wait would pass its caller's deadline, when `maxQueued` spawns already wait, or when its
 * caller stops. Every other refusal (depth, `max_total`, budget, authority) is immediate.
 */
export class SpawnQueue {
  readonly #maxQueued: number;
  readonly #now: () => number;
  #waiting = 0;

  constructor(maxQueued: number, now: () => number) {
    this.#maxQueued = maxQueued;
    this.#now = now;
  }

  /** Spawns waiting now. */
  get waiting(): number {
    return this.#waiting;
  }

  async admit<T extends { ok: true }>(spawn: QueuedSpawn<T>): Promise<T | Refused> {
    for (;;) {
      const decision = spawn.admit();
      if (decision.ok || decision.wait === undefined) return decision;
      const refusal = this.#boundFor(decision.wait, spawn.deadlineAt);
      if (refusal !== undefined) return { ok: false, reason: `${decision.reason}; ${refusal}` };
      const stopped = await this.#wait(spawn, decision.wait, decision.reason);
      if (stopped !== undefined) return { ok: false, reason: `${decision.reason}; ${stopped}` };
    }
  }

  /** Why this spawn may not wait, if it may not. */
  #boundFor(wait: SpawnWait, deadlineAt: number | undefined): string | undefined {
    if (this.#waiting >= this.#maxQueued)
      return `${this.#waiting} spawns already wait (max_queued ${this.#maxQueued})`;
    if (deadlineAt === undefined) return undefined;
    const left = deadlineAt - this.#now();
    if (wait.for === 'rate' && wait.ms >= left)
      return `the next spawn slot, in ${wait.ms} ms, would pass the caller's deadline (${Math.max(0, left)} ms left)`;
    if (left <= 0) return "the caller's deadline has passed";
    return undefined;
  }

  /** Waits for what `wait` names; a string says why the wait ended without a slot. */
  async #wait<T extends { ok: true }>(
    spawn: QueuedSpawn<T>,
    wait: SpawnWait,
    reason: string,
  ): Promise<string | undefined> {
    const started = this.#now();
    this.#waiting += 1;
    spawn.onWait(wait, reason, this.#waiting);
    const bound = new AbortController();
    const signal = AbortSignal.any([spawn.signal, bound.signal]);
    try {
      if (wait.for === 'rate') {
        await sleep(wait.ms, undefined, { signal });
        return undefined;
      }
      const left = spawn.deadlineAt === undefined ? undefined : spawn.deadlineAt - started;
      // Settles when `signal` fires too (the caller stopped, or the wait is over): never left
      // rejecting after the race.
      const deadline =
        left === undefined
          ? new Promise<never>(() => undefined)
          : sleep(left, 'deadline' as const, { signal }).catch(() => 'stopped' as const);
      const freed = spawn.childEnded().then(() => 'freed' as const);
      const cut = new Promise<'stopped'>((resolve) => {
        signal.addEventListener(
          'abort',
          () => {
            resolve('stopped');
          },
          { once: true },
        );
      });
      const why = await Promise.race([freed, deadline, cut]);
      if (why === 'deadline')
        return "no running sub-agent of the caller ended before the caller's deadline";
      return why === 'stopped' ? 'the caller stopped while the spawn waited' : undefined;
    } catch (error) {
      if (signal.aborted) return 'the caller stopped while the spawn waited';
      throw error;
    } finally {
      bound.abort();
      this.#waiting -= 1;
      spawn.onWaited(wait, this.#now() - started);
    }
  }
}

/**
 * How a caller's waiting spawns show: counted on its tree node (the live tree shows them), and
 * recorded as `spawn.waiting` and `spawn.waited` events on it.
 */
export function waitNotes(
  caller: TreeNode,
  record: (event: RunEventBodyOf<'spawn.waiting' | 'spawn.waited'>) => void,
): Pick<QueuedSpawn<{ ok: true }>, 'onWait' | 'onWaited'> {
  return {
    onWait: (wait, reason, waiting) => {
      caller.waitingSpawns = (caller.waitingSpawns ?? 0) + 1;
      record({
        type: 'spawn.waiting',
        for: wait.for,
        ...(wait.for === 'rate' ? { waitMs: wait.ms } : {}),
        reason,
        queued: waiting,
      });
    },
    onWaited: (wait, waitedMs) => {
      caller.waitingSpawns = Math.max(0, (caller.waitingSpawns ?? 1) - 1);
      record({ type: 'spawn.waited', for: wait.for, waitedMs });
    },
  };
}
