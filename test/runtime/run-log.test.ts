import { mkdtempSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkRunLog, recordRunLog } from '../../src/runtime/run-log.js';
import { writePlanAtomic } from '../../src/plan/index.js';
import { PlanSchema } from '../../src/plan/plan.js';
import { SqliteStore } from '../../src/store/sqlite-store.js';

function setup(): { dir: string; store: SqliteStore; log: string } {
  const dir = mkdtempSync(join(tmpdir(), 'arbor-runlog-'));
  const store = new SqliteStore(join(dir, 'arbor.db'));
  store.createRun({ id: 'run_a', instruction: 'plan', status: 'running', createdAt: 0, meta: {} });
  return { dir, store, log: join(dir, 'plan.run.toml') };
}

const plan = (status: 'pending' | 'done') =>
  PlanSchema.parse({ run: 'run_a', subtask: [{ id: 'a', instruction: 'x', status }] });

async function write(store: SqliteStore, log: string, status: 'pending' | 'done'): Promise<void> {
  await writePlanAtomic(log, plan(status), {
    beforeRename: (text) => {
      recordRunLog(store, 'run_a', log, text);
    },
  });
}

describe('checkRunLog', () => {
  it('trusts every text the run recorded, the one before the last included', async () => {
    const { store, log } = setup();
    await write(store, log, 'pending');
    const first = await readFile(log, 'utf8');
    await write(store, log, 'done');
    await expect(checkRunLog(log, 'run_a', store)).resolves.toBeUndefined();
    // A crash after the record and before the rename leaves the previous text in place.
    await writeFile(log, first);
    await expect(checkRunLog(log, 'run_a', store)).resolves.toBeUndefined();
  });

  it('refuses bytes the run never wrote, a run-log naming no run, and an unknown run', async () => {
    const { store, log } = setup();
    await write(store, log, 'pending');
    const text = await readFile(log, 'utf8');
    expect(text).toContain('"x"');
    await writeFile(log, text.replace('"x"', '"rm -rf ~"'));
    await expect(checkRunLog(log, 'run_a', store)).rejects.toThrow(
      /was changed since run run_a last wrote it.*--trust-run-log/,
    );
    await expect(checkRunLog(log, undefined, store)).rejects.toThrow(/names no run that wrote it/);
    await expect(checkRunLog(log, 'run_b', store)).rejects.toThrow(
      /says run run_b wrote it, but this store has no record/,
    );
  });

  it('does not take a record made for another file', async () => {
    const { dir, store, log } = setup();
    await write(store, log, 'pending');
    const other = join(dir, 'other.run.toml');
    await writeFile(other, await readFile(log));
    await expect(checkRunLog(other, 'run_a', store)).rejects.toThrow(/no record/);
  });
});
