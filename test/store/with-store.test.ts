import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { withStore, type SqliteStore } from '../../src/store/index.js';

const dirs: string[] = [];
function tempDb(): string {
  const dir = mkdtempSync(join(tmpdir(), 'arbor-with-store-'));
  dirs.push(dir);
  return join(dir, 'arbor.db');
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A closed store refuses every read. */
function expectClosed(store: SqliteStore | undefined): void {
  expect(store).toBeDefined();
  expect(() => store?.getRun('run_1')).toThrow();
}

describe('withStore', () => {
  it('returns what a read returns, and closes the store', () => {
    const path = tempDb();
    let used: SqliteStore | undefined;
    const run = withStore(path, (store) => {
      used = store;
      store.createRun({ id: 'run_1', instruction: 'x', status: 'running', createdAt: 1, meta: {} });
      return store.getRun('run_1');
    });
    expect(run?.id).toBe('run_1');
    expectClosed(used);
    // What was written is in the file for the next opening.
    expect(withStore(path, (store) => store.getRun('run_1')?.status)).toBe('running');
  });

  it('closes the store when the work throws, and lets the error through', () => {
    let used: SqliteStore | undefined;
    expect(() =>
      withStore(tempDb(), (store) => {
        used = store;
        throw new Error('bad read');
      }),
    ).toThrow('bad read');
    expectClosed(used);
  });

  it('keeps the store open until async work settles, then closes it', async () => {
    let used: SqliteStore | undefined;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const done = withStore(tempDb(), async (store) => {
      used = store;
      await gate;
      return store.getRun('run_1');
    });
    expect(() => used?.getRun('run_1')).not.toThrow();
    release();
    await expect(done).resolves.toBeUndefined();
    expectClosed(used);
  });

  it('closes the store when async work rejects', async () => {
    let used: SqliteStore | undefined;
    await expect(
      withStore(tempDb(), async (store) => {
        used = store;
        await Promise.resolve();
        throw new Error('bad answer');
      }),
    ).rejects.toThrow('bad answer');
    expectClosed(used);
  });
});
