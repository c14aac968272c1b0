import { describe, expect, it } from 'vitest';
import { SpawnPayloadSchema } from '../../src/protocol/index.js';
import { PROVIDERS } from '../../src/supervisor/index.js';
import type { Admitted, Refused, SpawnWait } from '../../src/supervisor/spawn/spawn-chokepoint.js';
import { SpawnQueue, type QueuedSpawn } from '../../src/supervisor/spawn/spawn-queue.js';
import { SpawnRate } from '../../src/supervisor/spawn/spawn-rate.js';

const ADMITTED: Admitted = {
  ok: true,
  provider: PROVIDERS.spawn,
  mode: 'sync',
  payload: SpawnPayloadSchema.parse({
    instruction: 'x',
    intelligence: { endpoints: [{ url: 'http://127.0.0.1:9/v1' }], model: 'm' },
    telemetry: { run_id: 'r', node_id: 'n1', node_path: '0.1' },
  }),
  grant: {},
};
const rate = (ms: number): Refused => ({
  ok: false,
  reason: 'spawn rate exceeded',
  wait: { for: 'rate', ms },
});
const BREADTH: Refused = { ok: false, reason: 'breadth: 2 running', wait: { for: 'breadth' } };

/** A spawn whose chokepoint answers `answers` in turn, and what happened to it. */
function spawnOf(
  answers: (Admitted | Refused)[],
  options: Partial<Pick<QueuedSpawn, 'deadlineAt' | 'childEnded' | 'signal'>> = {},
) {
  const waits: { wait: SpawnWait; queued: number }[] = [];
  const waited: SpawnWait[] = [];
  let admits = 0;
  const spawn: QueuedSpawn = {
    admit: () => answers[Math.min(admits++, answers.length - 1)] ?? ADMITTED,
    deadlineAt: undefined,
    childEnded: () => new Promise(() => undefined),
    signal: new AbortController().signal,
    onWait: (wait, _reason, queued) => waits.push({ wait, queued }),
    onWaited: (wait) => waited.push(wait),
    ...options,
  };
  return { spawn, waits, waited, admits: () => admits };
}

describe('SpawnQueue: spawns over the rate or breadth wait, bounded', () => {
  it('waits for the spawn rate, then admits, and reports the wait', async () => {
    const queue = new SpawnQueue(8, () => Date.now());
    const { spawn, waits, waited, admits } = spawnOf([rate(20), rate(5), ADMITTED]);
    await expect(queue.admit(spawn)).resolves.toMatchObject({ ok: true });
    expect(admits()).toBe(3);
    expect(waits.map((w) => w.wait)).toEqual([
      { for: 'rate', ms: 20 },
      { for: 'rate', ms: 5 },
    ]);
    expect(waited).toHaveLength(2);
    expect(queue.waiting).toBe(0);
  });

  it('waits for one of the caller’s children to end when its breadth is full', async () => {
    const queue = new SpawnQueue(8, () => Date.now());
    let free!: () => void;
    const ended = new Promise<void>((resolve) => {
      free = resolve;
    });
    const { spawn, waits } = spawnOf([BREADTH, ADMITTED], { childEnded: () => ended });
    const admitted = queue.admit(spawn);
    await expect.poll(() => waits.length).toBe(1);
    expect(queue.waiting).toBe(1);
    free();
    await expect(admitted).resolves.toMatchObject({ ok: true });
    expect(queue.waiting).toBe(0);
  });

  it('refuses at once when the next rate slot would pass the caller’s deadline', async () => {
    const queue = new SpawnQueue(8, () => 1_000);
    const { spawn, waits } = spawnOf([rate(500)], { deadlineAt: 1_200 });
    await expect(queue.admit(spawn)).resolves.toEqual({
      ok: false,
      reason:
        "spawn rate exceeded; the next spawn slot, in 500 ms, would pass the caller's deadline (200 ms left)",
    });
    expect(waits).toEqual([]);
  });

  it('refuses a breadth wait when no child ends before the caller’s deadline', async () => {
    const queue = new SpawnQueue(8, () => Date.now());
    const { spawn, waited } = spawnOf([BREADTH], { deadlineAt: Date.now() + 30 });
    await expect(queue.admit(spawn)).resolves.toEqual({
      ok: false,
      reason:
        "breadth: 2 running; no running sub-agent of the caller ended before the caller's deadline",
    });
    expect(waited).toEqual([{ for: 'breadth' }]);
  });

  it('refuses a spawn past the queue bound, naming max_queued', async () => {
    const queue = new SpawnQueue(1, () => Date.now());
    const first = spawnOf([BREADTH]);
    void queue.admit(first.spawn);
    await expect.poll(() => queue.waiting).toBe(1);
    const second = spawnOf([rate(10)]);
    await expect(queue.admit(second.spawn)).resolves.toEqual({
      ok: false,
      reason: 'spawn rate exceeded; 1 spawns already wait (max_queued 1)',
    });
    expect(second.waits).toEqual([]);
  });

  it('refuses a waiting spawn when its caller stops', async () => {
    const queue = new SpawnQueue(8, () => Date.now());
    const stop = new AbortController();
    const { spawn, waits } = spawnOf([BREADTH], { signal: stop.signal });
    const admitted = queue.admit(spawn);
    await expect.poll(() => waits.length).toBe(1);
    stop.abort('the node ended');
    await expect(admitted).resolves.toEqual({
      ok: false,
      reason: 'breadth: 2 running; the caller stopped while the spawn waited',
    });
    expect(queue.waiting).toBe(0);
  });

  it('passes every other refusal (max_total) through without waiting', async () => {
    const queue = new SpawnQueue(8, () => Date.now());
    const total: Refused = { ok: false, reason: 'total: 64 sub-agents (max_total 64)' };
    const { spawn, waits, admits } = spawnOf([total]);
    await expect(queue.admit(spawn)).resolves.toEqual(total);
    expect(waits).toEqual([]);
    expect(admits()).toBe(1);
  });
});

describe('SpawnRate', () => {
  it('takes no token back for an instant read before the last one it saw', () => {
    const rate = new SpawnRate(1, 1_000, 100);
    // A clock read a millisecond earlier (before the rate was made) still finds the token.
    expect(rate.take(99)).toBe(true);
    expect(rate.take(99)).toBe(false);
    expect(rate.msUntilToken(100)).toBe(1_000);
    expect(rate.take(1_100)).toBe(true);
  });

  it('takes a token back when a child ends, never past its size', () => {
    const rate = new SpawnRate(2, 2_000, 0);
    expect(rate.take(0)).toBe(true);
    expect(rate.take(0)).toBe(true);
    expect(rate.take(0)).toBe(false);
    rate.give(0);
    expect(rate.take(0)).toBe(true);
    rate.give(0);
    rate.give(0);
    rate.give(0);
    expect(rate.take(0)).toBe(true);
    expect(rate.take(0)).toBe(true);
    expect(rate.take(0)).toBe(false);
  });
});
