import { BranchTracker } from './branch-status.js';
import { MinHeap } from './min-heap.js';
import type { Plan } from './plan.js';
import type { ArtifactRef, Subtask, SubtaskStatus } from './subtask.js';

/** What to do after a leaf fails. */
export const FAILURE_POLICIES = ['stop', 'continue'] as const;
export type FailurePolicy = (typeof FAILURE_POLICIES)[number];

/** How one leaf's run ended, as the dispatcher reports it. */
export interface LeafOutcome {
  status: Extract<SubtaskStatus, 'done' | 'failed' | 'cancelled'>;
  result?: string;
  artifact_ref?: ArtifactRef;
  /** Tool calls arbor refused the leaf; absent: none. */
  refused_calls?: number;
}

export interface ScheduleOptions {
  /** Leaves with `parallel_ok` that may run at once (at least 1). */
  concurrency: number;
  /** `stop`: no new leaf starts after a failure. `continue`: independent leaves go on. */
  onFailure: FailurePolicy;
  /** Runs one leaf to its end. A throw counts as `failed` with the error's message. */
  dispatch(leaf: Subtask, signal: AbortSignal): Promise<LeafOutcome>;
  /**
   * Called after every status change with the subtasks that changed (a leaf, then the branches it
   * moved); awaited before the scheduler goes on, so a run-log written here is never behind.
   */
  onTransition?(changed: Subtask[]): void | Promise<void>;
  /** Aborting stops new starts and cancels running leaves (their dispatch sees the signal). */
  signal?: AbortSignal;
}

export type ScheduleSummary = Record<SubtaskStatus, number>;

/**
 * Runs a validated plan's leaves in dependency order and returns how many leaves ended in each
 * status. The plan is the run-log: statuses, results and artifact refs are written into it.
 *
 * A leaf is ready when all its deps are done. Ready leaves are taken in document order: one with
 * `parallel_ok` starts while fewer than `concurrency` leaves run and none runs alone; one without
 * runs alone (it waits for the running ones to end, and nothing starts beside it). A failed
 * leaf's dependents, transitively, become `blocked`; under `stop` every leaf not yet started
 * becomes `cancelled`. On resume, leaves already `done` are kept and every other leaf runs again
 * (one caught `running` by a crash, too).
 */
export async function runSchedule(plan: Plan, options: ScheduleOptions): Promise<ScheduleSummary> {
  const concurrency = Math.max(1, Math.floor(options.concurrency));
  const tracker = new BranchTracker(plan);
  const slots: Slot[] = plan.subtask
    .filter((subtask) => !tracker.isBranch(subtask.id))
    .map((leaf, index) => ({ leaf, index, dependents: [], waiting: 0 }));
  const byId = new Map(slots.map((slot) => [slot.leaf.id, slot]));
  const slotAt = (index: number): Slot => {
    const slot = slots[index];
    if (slot === undefined) throw new RangeError(`no leaf at ${index}`);
    return slot;
  };
  const transition = async (leaf: Subtask, status: SubtaskStatus): Promise<void> => {
    const changed = tracker.set(leaf, status);
    if (changed.length > 0) await options.onTransition?.(changed);
  };

  for (const slot of slots) {
    if (slot.leaf.status !== 'done') {
      delete slot.leaf.result;
      delete slot.leaf.refused_calls;
      await transition(slot.leaf, 'pending');
    }
    for (const dep of slot.leaf.deps) {
      const on = byId.get(dep);
      if (on === undefined) continue;
      on.dependents.push(slot);
      if (on.leaf.status !== 'done') slot.waiting += 1;
    }
  }
  const ready = new MinHeap();
  for (const slot of slots)
    if (slot.leaf.status === 'pending' && slot.waiting === 0) ready.push(slot.index);

  const controller = new AbortController();
  const stopAll = (): void => {
    controller.abort(options.signal?.reason);
  };
  options.signal?.addEventListener('abort', stopAll, { once: true });
  const finished: { slot: Slot; outcome: LeafOutcome }[] = [];
  let wake: (() => void) | undefined;
  /** Leaves running; one without `parallel_ok` running alone; no new starts after a failure. */
  const state = { running: 0, alone: false, stopped: false };

  const start = async (slot: Slot): Promise<void> => {
    state.running += 1;
    state.alone = !slot.leaf.parallel_ok;
    await transition(slot.leaf, 'running');
    void options
      .dispatch(slot.leaf, controller.signal)
      .catch((error: unknown): LeafOutcome => ({
        status: controller.signal.aborted ? 'cancelled' : 'failed',
        result: error instanceof Error ? error.message : String(error),
      }))
      .then((outcome) => {
        finished.push({ slot, outcome });
        wake?.();
      });
  };

  const block = async (from: Slot): Promise<void> => {
    const stack = [...from.dependents];
    for (let slot = stack.pop(); slot !== undefined; slot = stack.pop()) {
      if (slot.leaf.status !== 'pending') continue;
      slot.leaf.result = `blocked: dependency \`${from.leaf.id}\` did not finish`;
      await transition(slot.leaf, 'blocked');
      stack.push(...slot.dependents);
    }
  };

  const settle = async ({ slot, outcome }: { slot: Slot; outcome: LeafOutcome }): Promise<void> => {
    state.running -= 1;
    if (!slot.leaf.parallel_ok) state.alone = false;
    if (outcome.result !== undefined) slot.leaf.result = outcome.result;
    if (outcome.artifact_ref !== undefined) slot.leaf.artifact_ref = outcome.artifact_ref;
    if (outcome.refused_calls !== undefined) slot.leaf.refused_calls = outcome.refused_calls;
    await transition(slot.leaf, outcome.status);
    if (outcome.status === 'done') {
      for (const next of slot.dependents) {
        next.waiting -= 1;
        if (next.waiting === 0 && next.leaf.status === 'pending') ready.push(next.index);
      }
    } else if (outcome.status === 'failed') {
      await block(slot);
      if (options.onFailure === 'stop') state.stopped = true;
    }
  };

  try {
    for (;;) {
      while (!state.stopped && !controller.signal.aborted && !state.alone) {
        const head = ready.peek();
        if (head === undefined) break;
        const slot = slotAt(head);
        if (slot.leaf.parallel_ok ? state.running >= concurrency : state.running > 0) break;
        ready.pop();
        await start(slot);
      }
      if (state.running === 0 && finished.length === 0) break;
      if (finished.length === 0)
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      wake = undefined;
      for (const done of finished.splice(0)) await settle(done);
    }
    if (state.stopped) {
      for (const { leaf } of slots) {
        if (leaf.status !== 'pending') continue;
        leaf.result = 'cancelled: the run stopped after a failure (--on-failure stop)';
        await transition(leaf, 'cancelled');
      }
    }
  } finally {
    options.signal?.removeEventListener('abort', stopAll);
  }
  const summary: ScheduleSummary = {
    pending: 0,
    running: 0,
    done: 0,
    failed: 0,
    blocked: 0,
    cancelled: 0,
  };
  for (const { leaf } of slots) summary[leaf.status] += 1;
  return summary;
}

/** A leaf in the scheduler: its place in document order and its edges. */
interface Slot {
  leaf: Subtask;
  index: number;
  dependents: Slot[];
  /** Deps not yet done. */
  waiting: number;
}
