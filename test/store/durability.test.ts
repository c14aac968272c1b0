import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { replayTranscript, turnAnnounced, type TranscriptEntry } from '../../src/protocol/index.js';
import { openSqlDatabase, SqliteStore } from '../../src/store/index.js';
import { whyAbandoned, type RunOwner } from '../../src/store/run-owner.js';

const dirs: string[] = [];
function tempDb(): string {
  const dir = mkdtempSync(join(tmpdir(), 'arbor-durable-'));
  dirs.push(dir);
  return join(dir, 'arbor.db');
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const run = (id: string) => ({
  id,
  instruction: 'x',
  status: 'running' as const,
  createdAt: Date.now(),
  meta: {},
});

/** Rewrites a run's owner column, as another supervisor would have written it. */
function setOwner(db: string, runId: string, owner: RunOwner, leaseUntil: number): void {
  const sql = openSqlDatabase(db);
  sql
    .prepare('UPDATE runs SET owner = @owner, lease_until = @lease WHERE id = @id')
    .run({ owner: JSON.stringify(owner), lease: leaseUntil, id: runId });
  sql.close();
}

describe('run ownership and interrupted runs', () => {
  it('a new run is owned by this process with a lease in the future', () => {
    const store = new SqliteStore(tempDb());
    store.createRun(run('r1'));
    const hold = store.runHold('r1');
    expect(hold?.owner).toEqual(store.owner);
    expect(hold?.owner?.pid).toBe(process.pid);
    expect(hold?.leaseUntil).toBeGreaterThan(Date.now());
    store.close();
  });

  it('opening the store marks a run whose supervisor process is gone, with its live nodes', () => {
    const db = tempDb();
    const first = new SqliteStore(db);
    first.createRun(run('r1'));
    first.createRun(run('r2'));
    first.finishRun('r2', 'completed', Date.now());
    const me = first.owner;
    first.close();
    // A pid that cannot be alive: beyond the kernel's pid range.
    setOwner(db, 'r1', { ...me, pid: 2 ** 30 }, Date.now() + 60_000);
    const second = new SqliteStore(db);
    expect(second.interrupted).toEqual([
      { runId: 'r1', reason: `its supervisor (pid ${String(2 ** 30)}) is gone` },
    ]);
    expect(second.getRun('r1')?.status).toBe('interrupted');
    expect(second.getRun('r2')?.status).toBe('completed');
    expect(second.listEvents('r1').map((e) => e.kind)).toContain('run.interrupted');
    second.close();
  });

  it('counts the stretch from the last lease renewal to the last record as active time', () => {
    const db = tempDb();
    const first = new SqliteStore(db);
    const t0 = Date.now() - 10_000;
    first.createRun({ ...run('r1'), createdAt: t0 });
    first.appendEvent({ runId: 'r1', ts: t0 + 1_500, kind: 'loop.step', data: {} });
    first.appendTranscript('r1', 'n0', t0 + 1_200, { op: 'rewind', length: 0 });
    const me = first.owner;
    first.close();
    setOwner(db, 'r1', { ...me, pid: 2 ** 30 }, Date.now() + 60_000);
    const second = new SqliteStore(db);
    expect(second.getRun('r1')?.status).toBe('interrupted');
    // Renewed at the start; recorded until 1.5 s later; dead for the 8.5 s since.
    expect(second.runHold('r1')?.activeMs).toBe(1_500);
    second.close();
  });

  it('a run on another host is interrupted only once its lease has expired', () => {
    const db = tempDb();
    const store = new SqliteStore(db);
    store.createRun(run('held'));
    store.createRun(run('lapsed'));
    const other = { ...store.owner, host: 'elsewhere', pid: 1 };
    setOwner(db, 'held', other, Date.now() + 60_000);
    setOwner(db, 'lapsed', other, Date.now() - 1);
    expect(store.reapInterrupted().map((r) => r.runId)).toEqual(['lapsed']);
    expect(store.getRun('held')?.status).toBe('running');
    store.close();
  });

  it('explains why a run is abandoned, or says it may be alive', () => {
    const me: RunOwner = { host: 'h', boot_id: 'b', pid: 10, started_at: 0 };
    const alive = () => true;
    expect(whyAbandoned(undefined, undefined, me, 5)).toBe('the run records no owner');
    expect(whyAbandoned({ ...me, boot_id: 'old' }, 100, me, 5, alive)).toBe(
      'host h has rebooted since',
    );
    expect(whyAbandoned({ ...me, pid: 11 }, 100, me, 5, () => false)).toBe(
      'its supervisor (pid 11) is gone',
    );
    expect(whyAbandoned({ ...me, pid: 11 }, 100, me, 5, alive)).toBeUndefined();
    expect(whyAbandoned({ ...me, pid: 11 }, 4, me, 5, alive)).toMatch(/lease expired/);
  });

  it('stores transcript entries in order and replays them with results in call order', () => {
    const store = new SqliteStore(tempDb());
    store.createRun(run('r1'));
    const entries: TranscriptEntry[] = [
      { op: 'append', message: { role: 'user', text: 'go' } },
      {
        op: 'append',
        message: {
          role: 'assistant',
          tool_calls: [
            { id: 'a', name: 't', args: {} },
            { id: 'b', name: 't', args: {} },
          ],
        },
      },
      // The second call finished first.
      {
        op: 'append',
        message: { role: 'tool', id: 'b', name: 't', content: 'B', is_error: false },
      },
      {
        op: 'append',
        message: { role: 'tool', id: 'a', name: 't', content: 'A', is_error: false },
      },
      { op: 'append', message: { role: 'assistant', text: 'done', tool_calls: [] } },
      { op: 'rewind', length: 4 },
    ];
    for (const entry of entries) store.appendTranscript('r1', 'n0', 1, entry);
    const recorded = store.listTranscript('r1', 'n0');
    expect(recorded).toEqual(entries);
    expect(replayTranscript(recorded).map((m) => (m.role === 'tool' ? m.id : m.role))).toEqual([
      'user',
      'assistant',
      'a',
      'b',
    ]);
    store.close();
  });

  it("keeps the supervisor's turn marks, which replay ignores and which say a turn was announced", () => {
    const store = new SqliteStore(tempDb());
    store.createRun(run('r1'));
    const user = (text: string): TranscriptEntry => ({
      op: 'append',
      message: { role: 'user', text },
    });
    const answer: TranscriptEntry = {
      op: 'append',
      message: { role: 'assistant', text: 'A1', tool_calls: [] },
    };
    for (const entry of [user('first'), answer]) store.appendTranscript('r1', 'n0', 1, entry);
    expect(turnAnnounced(store.listTranscript('r1', 'n0'))).toBe(false);
    store.appendTranscript('r1', 'n0', 2, { op: 'turn' });
    const marked = store.listTranscript('r1', 'n0');
    expect(turnAnnounced(marked)).toBe(true);
    expect(replayTranscript(marked)).toHaveLength(2);
    // The next message opens a turn the mark does not cover.
    store.appendTranscript('r1', 'n0', 3, user('second'));
    expect(turnAnnounced(store.listTranscript('r1', 'n0'))).toBe(false);
    store.close();
  });
});
