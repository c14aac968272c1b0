import { describe, expect, it } from 'vitest';
import {
  PlanSchema,
  runSchedule,
  type LeafOutcome,
  type Plan,
  type PlanInput,
  type ScheduleOptions,
  type Subtask,
} from '../../src/plan/index.js';

function plan(subtask: PlanInput['subtask']): Plan {
  return PlanSchema.parse({ subtask });
}

/** A dispatcher whose leaves end when the test says so, recording starts and concurrency. */
function controlled(outcomes: Record<string, LeafOutcome['status']> = {}) {
  const started: string[] = [];
  const open = new Map<string, (outcome: LeafOutcome) => void>();
  let running = 0;
  let maxRunning = 0;
  const waiters: (() => void)[] = [];
  const dispatch: ScheduleOptions['dispatch'] = (leaf, signal) => {
    started.push(leaf.id);
    running += 1;
    maxRunning = Math.max(maxRunning, running);
    for (const wake of waiters.splice(0)) wake();
    return new Promise<LeafOutcome>((resolve) => {
      const end = (outcome: LeafOutcome): void => {
        running -= 1;
        open.delete(leaf.id);
        resolve(outcome);
      };
      open.set(leaf.id, end);
      signal.addEventListener('abort', () => {
        end({ status: 'cancelled' });
      });
    });
  };
  return {
    dispatch,
    started,
    get maxRunning() {
      return maxRunning;
    },
    async whenStarted(id: string): Promise<void> {
      while (!open.has(id)) await new Promise<void>((resolve) => waiters.push(resolve));
    },
    /** Waits until `id` has started, then ends it with its scripted status. */
    async finish(id: string): Promise<void> {
      await this.whenStarted(id);
      open.get(id)!({ status: outcomes[id] ?? 'done', result: `${id} result` });
    },
    running: () => [...open.keys()],
  };
}

/** A dispatcher that ends every leaf at once with its scripted status. */
function immediate(outcomes: Record<string, LeafOutcome['status']> = {}) {
  const started: string[] = [];
  const dispatch = (leaf: Subtask): Promise<LeafOutcome> => {
    started.push(leaf.id);
    return Promise.resolve({ status: outcomes[leaf.id] ?? 'done', result: `${leaf.id} ok` });
  };
  return { dispatch, started };
}

const statuses = (p: Plan) => Object.fromEntries(p.subtask.map((s) => [s.id, s.status]));

describe('runSchedule', () => {
  it('runs a diamond in dependency order and closes it done', async () => {
    const p = plan([
      { id: 'a', instruction: 'a' },
      { id: 'b', instruction: 'b', deps: ['a'], parallel_ok: true },
      { id: 'c', instruction: 'c', deps: ['a'], parallel_ok: true },
      { id: 'd', instruction: 'd', deps: ['b', 'c'] },
    ]);
    const run = controlled();
    const scheduled = runSchedule(p, { concurrency: 4, onFailure: 'stop', dispatch: run.dispatch });
    await run.finish('a');
    await run.whenStarted('c');
    await run.finish('b');
    expect(run.running()).toEqual(['c']);
    expect(run.started).not.toContain('d');
    await run.finish('c');
    await run.finish('d');
    const summary = await scheduled;
    expect(run.started).toEqual(['a', 'b', 'c', 'd']);
    expect(run.maxRunning).toBe(2);
    expect(summary.done).toBe(4);
    expect(p.subtask.map((s) => s.result)).toEqual([
      'a result',
      'b result',
      'c result',
      'd result',
    ]);
  });

  it('caps parallel leaves at the concurrency and runs the others one at a time', async () => {
    const p = plan([
      ...['p1', 'p2', 'p3', 'p4'].map((id) => ({ id, instruction: id, parallel_ok: true })),
      { id: 's1', instruction: 's1' },
      { id: 's2', instruction: 's2' },
    ]);
    const run = controlled();
    const scheduled = runSchedule(p, { concurrency: 2, onFailure: 'stop', dispatch: run.dispatch });
    await run.whenStarted('p2');
    expect(run.running()).toEqual(['p1', 'p2']);
    await run.finish('p1');
    await run.finish('p2');
    await run.finish('p3');
    await run.finish('p4');
    await run.whenStarted('s1');
    expect(run.running()).toEqual(['s1']);
    await run.finish('s1');
    await run.whenStarted('s2');
    expect(run.running()).toEqual(['s2']);
    await run.finish('s2');
    await scheduled;
    expect(run.maxRunning).toBe(2);
    expect(run.started).toEqual(['p1', 'p2', 'p3', 'p4', 's1', 's2']);
  });

  it('never starts a leaf without parallel_ok beside another', async () => {
    const p = plan([
      { id: 'p1', instruction: 'p1', parallel_ok: true },
      { id: 's', instruction: 's' },
      { id: 'p2', instruction: 'p2', parallel_ok: true },
    ]);
    const run = controlled();
    const scheduled = runSchedule(p, { concurrency: 8, onFailure: 'stop', dispatch: run.dispatch });
    await run.finish('p1');
    await run.whenStarted('s');
    expect(run.running()).toEqual(['s']);
    await run.finish('s');
    await run.finish('p2');
    await scheduled;
    expect(run.maxRunning).toBe(1);
  });

  it('under stop, starts nothing after a failure: dependents blocked, the rest cancelled', async () => {
    const p = plan([
      { id: 'a', instruction: 'a' },
      { id: 'b', instruction: 'b', deps: ['a'] },
      { id: 'c', instruction: 'c', deps: ['b'] },
      { id: 'x', instruction: 'x' },
    ]);
    const run = immediate({ a: 'failed' });
    const summary = await runSchedule(p, { concurrency: 1, onFailure: 'stop', ...run });
    expect(run.started).toEqual(['a']);
    expect(statuses(p)).toEqual({ a: 'failed', b: 'blocked', c: 'blocked', x: 'cancelled' });
    expect(p.subtask[1]!.result).toContain('dependency `a`');
    expect(summary).toMatchObject({ failed: 1, blocked: 2, cancelled: 1, done: 0 });
  });

  it('under continue, runs independent leaves and blocks only the dependents', async () => {
    const p = plan([
      { id: 'a', instruction: 'a' },
      { id: 'b', instruction: 'b', deps: ['a'] },
      { id: 'x', instruction: 'x' },
      { id: 'y', instruction: 'y', deps: ['x'] },
    ]);
    const run = immediate({ a: 'failed' });
    await runSchedule(p, { concurrency: 1, onFailure: 'continue', ...run });
    expect(run.started).toEqual(['a', 'x', 'y']);
    expect(statuses(p)).toEqual({ a: 'failed', b: 'blocked', x: 'done', y: 'done' });
  });

  it('counts a dispatcher that throws as a failure with its message', async () => {
    const p = plan([{ id: 'a', instruction: 'a' }]);
    const summary = await runSchedule(p, {
      concurrency: 1,
      onFailure: 'stop',
      dispatch: () => Promise.reject(new Error('no child')),
    });
    expect(summary.failed).toBe(1);
    expect(p.subtask[0]!.result).toBe('no child');
  });

  it('closes a branch when its subtree is done, and reports each transition', async () => {
    const p = plan([
      { id: 'epic', instruction: 'epic', kind: 'phase' },
      { id: 'one', instruction: 'one', parent: 'epic' },
      { id: 'two', instruction: 'two', parent: 'epic', deps: ['one'] },
    ]);
    const seen: string[] = [];
    const run = immediate();
    await runSchedule(p, {
      concurrency: 1,
      onFailure: 'stop',
      ...run,
      onTransition: (changed) => {
        seen.push(changed.map((s) => `${s.id}:${s.status}`).join(' '));
      },
    });
    expect(seen).toEqual([
      'one:running epic:running',
      'one:done',
      'two:running',
      'two:done epic:done',
    ]);
    expect(run.started).toEqual(['one', 'two']);
  });

  it('marks a branch failed when a leaf below it fails', async () => {
    const p = plan([
      { id: 'epic', instruction: 'epic' },
      { id: 'one', instruction: 'one', parent: 'epic' },
      { id: 'two', instruction: 'two', parent: 'epic' },
    ]);
    await runSchedule(p, {
      concurrency: 1,
      onFailure: 'continue',
      ...immediate({ two: 'failed' }),
    });
    expect(statuses(p)).toEqual({ epic: 'failed', one: 'done', two: 'failed' });
  });

  it('resumes a run-log: done leaves stay done, a leaf caught running runs again', async () => {
    const p = plan([
      { id: 'a', instruction: 'a', status: 'done', result: 'kept' },
      { id: 'b', instruction: 'b', deps: ['a'], status: 'running' },
      { id: 'c', instruction: 'c', deps: ['b'], status: 'blocked', result: 'stale' },
    ]);
    const run = immediate();
    await runSchedule(p, { concurrency: 1, onFailure: 'stop', ...run });
    expect(run.started).toEqual(['b', 'c']);
    expect(p.subtask.map((s) => s.result)).toEqual(['kept', 'b ok', 'c ok']);
  });

  it('cancels running leaves and starts no more when the signal aborts', async () => {
    const p = plan([
      { id: 'a', instruction: 'a' },
      { id: 'b', instruction: 'b', deps: ['a'] },
    ]);
    const run = controlled();
    const abort = new AbortController();
    const scheduled = runSchedule(p, {
      concurrency: 1,
      onFailure: 'stop',
      dispatch: run.dispatch,
      signal: abort.signal,
    });
    await run.whenStarted('a');
    abort.abort('interrupted');
    const summary = await scheduled;
    expect(statuses(p)).toEqual({ a: 'cancelled', b: 'pending' });
    expect(summary).toMatchObject({ cancelled: 1, pending: 1 });
  });
});
