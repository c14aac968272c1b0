import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { redactPayload } from '../../src/protocol/index.js';
import { availableSqlDrivers, openSqlDatabase, SqliteStore } from '../../src/store/index.js';
import { MIGRATIONS } from '../../src/store/migrations.js';
import type { NodeRecord } from '../../src/supervisor/index.js';
import { testPayload } from '../helpers/payloads.js';

const dirs: string[] = [];
function tempDb(): string {
  const dir = mkdtempSync(join(tmpdir(), 'arbor-store-'));
  dirs.push(dir);
  return join(dir, 'nested', 'arbor.db');
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function node(overrides: Partial<NodeRecord> = {}): NodeRecord {
  return {
    runId: 'run_1',
    id: 'n0',
    path: '0',
    depth: 0,
    provider: 'process',
    instruction: 'Say hello.',
    status: 'spawning',
    payload: redactPayload(
      testPayload({
        intelligence: {
          endpoints: [{ url: 'http://127.0.0.1:9/v1', api_key: 'sk-secret-1' }],
          model: 'm',
        },
      }),
    ),
    attempts: 1,
    createdAt: 1000,
    usage: { input_tokens: 0, output_tokens: 0 },
    ...overrides,
  };
}

// The same cases on every SQLite binding that loads on this Node.js: node:sqlite from 22.5 on,
// better-sqlite3 where its native module was built for this Node.js. CI runs Node 20 and 26.
describe.each(availableSqlDrivers())('SqliteStore on %s', (driver) => {
  const open = (path: string): SqliteStore => new SqliteStore(path, { driver });

  it('records a run, its nodes, events and usage, and reads them back after reopening', () => {
    const path = tempDb();
    const store = open(path);
    store.createRun({
      id: 'run_1',
      instruction: 'Say hello.',
      status: 'running',
      createdAt: 1000,
      meta: { model: 'm' },
    });
    store.createNode(node());
    store.createNode(node({ id: 'n1', parentId: 'n0', path: '0.1', depth: 1 }));
    store.updateNode('run_1', 'n0', { status: 'running', startedAt: 1100 });
    store.addUsage('run_1', 'n0', { input_tokens: 10, output_tokens: 3 });
    store.addUsage('run_1', 'n0', { input_tokens: 5, output_tokens: 2, cost_usd: 0.25 });
    store.appendEvent({
      runId: 'run_1',
      nodeId: 'n0',
      ts: 1200,
      kind: 'loop.step',
      data: { step: 1 },
    });
    store.appendEvent({ runId: 'run_1', ts: 1300, kind: 'run.note', data: {} });
    store.updateNode('run_1', 'n0', {
      status: 'completed',
      endedAt: 1400,
      outcome: {
        status: 'completed',
        partial: false,
        result: 'hi',
        scheduled: [],
        subscriptions: [],
      },
    });
    store.finishRun('run_1', 'completed', 1500);
    store.close();

    const reopened = open(path);
    expect(reopened.getRun('run_1')).toEqual({
      id: 'run_1',
      instruction: 'Say hello.',
      status: 'completed',
      createdAt: 1000,
      endedAt: 1500,
      meta: { model: 'm' },
    });
    const root = reopened.getNode('run_1', 'n0');
    expect(root).toMatchObject({
      status: 'completed',
      startedAt: 1100,
      endedAt: 1400,
      usage: { input_tokens: 15, output_tokens: 5, cost_usd: 0.25 },
      outcome: { result: 'hi' },
    });
    expect(reopened.listNodes('run_1').map((n) => n.path)).toEqual(['0', '0.1']);
    const events = reopened.listEvents('run_1');
    expect(events.map((e) => [e.kind, e.nodeId, e.data])).toEqual([
      ['loop.step', 'n0', { step: 1 }],
      ['run.note', undefined, {}],
    ]);
    expect(events[1]!.seq).toBeGreaterThan(events[0]!.seq);
    expect(reopened.listEvents('run_1', { afterSeq: events[0]!.seq }).map((e) => e.kind)).toEqual([
      'run.note',
    ]);
    reopened.close();
  });

  it('writes batched events before any later write, so the record keeps its order', () => {
    const path = tempDb();
    const store = open(path);
    store.createRun({ id: 'run_1', instruction: 'x', status: 'running', createdAt: 1, meta: {} });
    store.appendEvent({ runId: 'run_1', ts: 2, kind: 'a', data: {} });
    store.finishRun('run_1', 'completed', 3);
    // The batch was written by the later write, not left for the end of the tick.
    const raw = openSqlDatabase(path, driver);
    expect(raw.prepare('SELECT kind FROM events').all()).toEqual([{ kind: 'a' }]);
    raw.close();
    store.appendEvent({ runId: 'run_1', ts: 4, kind: 'b', data: {} });
    store.close();
    expect(
      open(path)
        .listEvents('run_1')
        .map((e) => e.kind),
    ).toEqual(['a', 'b']);
  });

  it('commits node updates, usage and transcript changes with the events, in order, by the end of the turn', async () => {
    const path = tempDb();
    const store = open(path);
    store.createRun({ id: 'run_1', instruction: 'x', status: 'running', createdAt: 1, meta: {} });
    store.createNode(node());
    const raw = openSqlDatabase(path, driver);
    const committed = () => ({
      node: raw.prepare('SELECT status, input_tokens FROM nodes').all(),
      transcript: raw.prepare('SELECT entry FROM transcripts').all().length,
      events: raw.prepare('SELECT kind FROM events ORDER BY seq').all(),
    });
    store.updateNode('run_1', 'n0', { status: 'running', startedAt: 2 });
    store.appendEvent({ runId: 'run_1', nodeId: 'n0', ts: 3, kind: 'a', data: {} });
    store.addUsage('run_1', 'n0', { input_tokens: 7, output_tokens: 1 });
    store.appendTranscript('run_1', 'n0', 4, {
      op: 'append',
      message: { role: 'user', text: 'hi' },
    });
    store.updateNode('run_1', 'n0', { status: 'completed', endedAt: 5 });
    store.appendEvent({ runId: 'run_1', nodeId: 'n0', ts: 5, kind: 'b', data: {} });
    // Nothing is committed yet: the batch waits for the end of this turn of the event loop.
    expect(committed()).toEqual({
      node: [{ status: 'spawning', input_tokens: 0 }],
      transcript: 0,
      events: [],
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(committed()).toEqual({
      node: [{ status: 'completed', input_tokens: 7 }],
      transcript: 1,
      events: [{ kind: 'a' }, { kind: 'b' }],
    });
    raw.close();
    store.close();
  });

  it('writes the batch before a read of what it touches', () => {
    const store = open(tempDb());
    store.createRun({ id: 'run_1', instruction: 'x', status: 'running', createdAt: 1, meta: {} });
    store.createNode(node());
    store.updateNode('run_1', 'n0', { status: 'running' });
    expect(store.getNode('run_1', 'n0')?.status).toBe('running');
    store.addUsage('run_1', 'n0', { input_tokens: 3, output_tokens: 2 });
    expect(store.listNodes('run_1')[0]?.usage).toEqual({ input_tokens: 3, output_tokens: 2 });
    store.appendTranscript('run_1', 'n0', 2, {
      op: 'append',
      message: { role: 'user', text: 'hi' },
    });
    expect(store.listTranscript('run_1', 'n0')).toHaveLength(1);
    store.close();
  });

  it('keeps the rest of a batch when one write in it cannot be made, and reports that one', () => {
    const path = tempDb();
    const store = open(path);
    store.createRun({ id: 'run_1', instruction: 'x', status: 'running', createdAt: 1, meta: {} });
    store.createNode(node());
    store.appendEvent({ runId: 'run_1', nodeId: 'n0', ts: 2, kind: 'before', data: {} });
    // An event without a kind (a caller outside the type system) breaks a NOT NULL constraint.
    store.appendEvent({ runId: 'run_1', ts: 3, kind: null as unknown as string, data: {} });
    store.updateNode('run_1', 'n0', { status: 'running' });
    store.appendEvent({ runId: 'run_1', nodeId: 'n0', ts: 4, kind: 'after', data: {} });
    expect(() => {
      store.flush();
    }).toThrow(/NOT NULL/i);
    expect(store.listEvents('run_1').map((e) => e.kind)).toEqual(['before', 'after']);
    expect(store.getNode('run_1', 'n0')?.status).toBe('running');
    store.close();
  });

  it('serialises a record when it is made: a value that cannot be stored is refused at once', () => {
    const store = open(tempDb());
    store.createRun({ id: 'run_1', instruction: 'x', status: 'running', createdAt: 1, meta: {} });
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => {
      store.appendEvent({ runId: 'run_1', ts: 2, kind: 'a', data: cyclic });
    }).toThrow(/circular/i);
    store.appendEvent({ runId: 'run_1', ts: 3, kind: 'b', data: {} });
    expect(store.listEvents('run_1').map((e) => e.kind)).toEqual(['b']);
    store.close();
  });

  it('never holds a credential: the stored payload is the redacted one', () => {
    const path = tempDb();
    const store = open(path);
    store.createRun({ id: 'run_1', instruction: 'x', status: 'running', createdAt: 1, meta: {} });
    store.createNode(node());
    store.close();
    const raw = openSqlDatabase(path, driver);
    const dump = JSON.stringify(raw.prepare('SELECT * FROM nodes').all());
    raw.close();
    expect(dump).not.toContain('sk-secret-1');
  });

  it('uses WAL journaling and records its schema version', () => {
    const path = tempDb();
    open(path).close();
    const raw = openSqlDatabase(path, driver);
    expect(raw.pragma('journal_mode')).toBe('wal');
    expect(raw.pragma('user_version')).toBe(MIGRATIONS.length);
    raw.close();
  });

  it('refuses a store written by a newer arbor', () => {
    const path = tempDb();
    open(path).close();
    const raw = openSqlDatabase(path, driver);
    raw.pragma('user_version = 99');
    raw.close();
    expect(() => open(path)).toThrow(/schema version 99, newer than this arbor understands/);
  });
  it('migrates a store an older arbor wrote, keeping its records', () => {
    const path = tempDb();
    // A store as the first release left it: only the first migration, user_version 1.
    open(path).close();
    rmSync(path);
    const old = openSqlDatabase(path, driver);
    old.exec(MIGRATIONS[0] ?? '');
    old.pragma('user_version = 1');
    old
      .prepare(
        "INSERT INTO runs (id, instruction, status, created_at, meta) VALUES ('run_old', 'x', 'completed', 5, '{}')",
      )
      .run();
    old.close();

    const store = open(path);
    expect(store.getRun('run_old')).toMatchObject({ id: 'run_old', status: 'completed' });
    // Tables of later migrations exist and work.
    store.windowAdd('k', 0, 10, 1);
    expect(store.windowGet('k', 0)).toEqual({ tokens: 10, requests: 1 });
    store.close();
    const raw = openSqlDatabase(path, driver);
    expect(raw.pragma('user_version')).toBe(MIGRATIONS.length);
    raw.close();
  });

  it('refuses an SQLite database that arbor did not create, and leaves it as it was', () => {
    const path = tempDb();
    open(path).close();
    rmSync(path);
    const other = openSqlDatabase(path, driver);
    other.exec('CREATE TABLE notes (body TEXT)');
    other.close();
    expect(() => open(path)).toThrow(
      `Cannot use the store at ${path}: it is an SQLite database that arbor did not create`,
    );
    const raw = openSqlDatabase(path, driver);
    expect(raw.prepare('SELECT name FROM sqlite_master').all()).toEqual([{ name: 'notes' }]);
    expect(raw.pragma('user_version')).toBe(0);
    raw.close();
  });
});
