import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CHILD_WAITING_MSG } from '../../src/child/pool-signals.js';
import { ChildPool, type ChildPoolOptions } from '../../src/supervisor/index.js';

/**
 * A stand-in child that starts fast: it notes its start in a file, says it is waiting as arbor's
 * child does, and exits when its input closes (or at once, with `FAIL=1`).
 */
const CHILD = `
require('node:fs').appendFileSync(process.env.STARTS, process.pid + '\\n');
if (process.env.FAIL === '1') process.exit(1);
process.stderr.write(JSON.stringify({ msg: ${JSON.stringify(CHILD_WAITING_MSG)} }) + '\\n');
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
`;

const pools: ChildPool[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const pool of pools.splice(0)) pool.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function pool(options: Partial<ChildPoolOptions> & { fail?: boolean } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'arbor-pool-'));
  dirs.push(dir);
  const starts = join(dir, 'starts');
  const made = new ChildPool({
    command: { command: process.execPath, args: ['-e', CHILD] },
    env: { PATH: process.env.PATH ?? '', STARTS: starts, FAIL: options.fail === true ? '1' : '0' },
    size: 0,
    ...options,
  });
  pools.push(made);
  const started = (): number => {
    try {
      return readFileSync(starts, 'utf8').split('\n').filter(Boolean).length;
    } catch {
      return 0;
    }
  };
  return { pool: made, started };
}

describe('a pool of idle children', () => {
  it('fills one child at a time, each once the one before it is loaded', async () => {
    const { pool: fixed, started } = pool({ size: 3 });
    // One is starting; the others wait for it.
    expect(fixed.held).toBe(1);
    await vi.waitFor(() => {
      expect(fixed.available).toBeGreaterThanOrEqual(1);
    });
    await fixed.whenFull();
    expect([fixed.available, fixed.held, started()]).toEqual([3, 3, 3]);
  });

  it('starts nothing until children are asked for, then keeps as many as were taken, up to its ceiling', async () => {
    const { pool: demand, started } = pool({ size: 0, max: 3 });
    expect(demand.held).toBe(0);
    // Nothing waiting yet: the take misses, and counts as demand.
    expect(demand.take()).toBeUndefined();
    expect(demand.target).toBe(1);
    await demand.whenFull();
    expect(demand.available).toBe(1);
    const taken = demand.take();
    expect(taken?.pid).toBeDefined();
    taken?.closeInput();
    expect(demand.take()).toBeUndefined();
    expect(demand.target).toBe(3);
    await demand.whenFull();
    expect(demand.available).toBe(3);
    for (let i = 0; i < 3; i++) demand.take()?.closeInput();
    // Six takes, but never more than three children held.
    expect(demand.target).toBe(3);
    await demand.whenFull();
    expect(demand.held).toBe(3);
    expect(started()).toBe(7);
  });

  it('stops the idle children it no longer wants once demand has fallen', async () => {
    const { pool: demand } = pool({ size: 1, max: 3, demandWindowMs: 300 });
    for (let i = 0; i < 3; i++) demand.take()?.closeInput();
    expect(demand.target).toBe(3);
    await demand.whenFull();
    expect(demand.held).toBe(3);
    // The window passes with no take: back to the floor.
    await vi.waitFor(
      () => {
        expect(demand.held).toBe(1);
      },
      { timeout: 5_000, interval: 20 },
    );
    expect(demand.target).toBe(1);
    expect(demand.available).toBe(1);
  });

  it('does not start a child that cannot start again and again: once per take', async () => {
    const { pool: failing, started } = pool({ size: 2, fail: true });
    await vi.waitFor(() => {
      expect(started()).toBe(1);
      expect(failing.held).toBe(0);
    });
    expect(failing.take()).toBeUndefined();
    await vi.waitFor(() => {
      expect(started()).toBe(2);
      expect(failing.held).toBe(0);
    });
    // Nothing more is started without another take (an absence: given time to show).
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(started()).toBe(2);
  });

  it('starts nothing once closed, and stops what it held', async () => {
    const { pool: fixed, started } = pool({ size: 2 });
    await fixed.whenFull();
    fixed.close();
    expect(fixed.held).toBe(0);
    expect(fixed.take()).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(started()).toBe(2);
  });
});
