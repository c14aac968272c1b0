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
  const dir = mkdtempSync(join(tmpdir(), 'arbor-splits-'));
  dirs.push(dir);
  return join(dir, 'arbor.db');
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function node(id: string, path: string, overrides: Partial<NodeRecord> = {}): NodeRecord {
  return {
    runId: 'run_1',
    id,
    path,
    depth: path.split('.').length - 1,
    provider: 'process',
    instruction: 'Say hello.',
    status: 'running',
    payload: redactPayload(
      testPayload({ intelligence: { endpoints: [{ url: 'http://127.0.0.1:9/v1' }], model: 'm' } }),
    ),
    attempts: 1,
    createdAt: 1000,
    usage: { input_tokens: 0, output_tokens: 0 },
    ...overrides,
  };
}

describe.each(availableSqlDrivers())('usage splits in the store on %s', (driver) => {
  const open = (path: string): SqliteStore => new SqliteStore(path, { driver });
  const run = (store: SqliteStore): void => {
    store.createRun({ id: 'run_1', instruction: 'x', status: 'running', createdAt: 1, meta: {} });
  };

  it('keeps cache reads, writes, one-hour writes and reasoning apart, own and subtree, across a reopen', () => {
    const path = tempDb();
    const store = open(path);
    run(store);
    store.createNode(node('n0', '0'));
    store.addUsage('run_1', 'n0', {
      input_tokens: 1_000,
      output_tokens: 100,
      cache_read_tokens: 600,
      cache_write_tokens: 300,
      cache_write_1h_tokens: 100,
      reasoning_tokens: 40,
      cost_usd: 0.5,
    });
    // A call that reported no splits leaves them as they are; one that did adds to them.
    store.addUsage('run_1', 'n0', { input_tokens: 10, output_tokens: 1 });
    store.addUsage('run_1', 'n0', { input_tokens: 10, output_tokens: 1, cache_read_tokens: 5 });
    store.updateNode('run_1', 'n0', {
      subtreeUsage: {
        input_tokens: 2_000,
        output_tokens: 200,
        cache_read_tokens: 900,
        reasoning_tokens: 80,
      },
    });
    store.close();
    const again = open(path);
    const read = again.getNode('run_1', 'n0');
    expect(read?.usage).toEqual({
      input_tokens: 1_020,
      output_tokens: 102,
      cache_read_tokens: 605,
      cache_write_tokens: 300,
      cache_write_1h_tokens: 100,
      reasoning_tokens: 40,
      cost_usd: 0.5,
    });
    expect(read?.subtreeUsage).toEqual({
      input_tokens: 2_000,
      output_tokens: 200,
      cache_read_tokens: 900,
      reasoning_tokens: 80,
    });
    again.close();
  });

  it('stores the splits of a node created with usage (a resumed node), and none where none were reported', () => {
    const store = open(tempDb());
    run(store);
    store.createNode(
      node('n0', '0', { usage: { input_tokens: 5, output_tokens: 1, cache_read_tokens: 3 } }),
    );
    store.createNode(node('n1', '0.1', { parentId: 'n0' }));
    store.addUsage('run_1', 'n1', { input_tokens: 7, output_tokens: 2 });
    expect(store.getNode('run_1', 'n0')?.usage).toEqual({
      input_tokens: 5,
      output_tokens: 1,
      cache_read_tokens: 3,
    });
    expect(store.getNode('run_1', 'n1')?.usage).toEqual({ input_tokens: 7, output_tokens: 2 });
    store.close();
  });

  it('migrates a store written before the splits: old nodes read with no splits, new usage adds them', () => {
    const path = tempDb();
    const old = openSqlDatabase(path, driver);
    const before = MIGRATIONS.findIndex((migration) => migration.includes('cache_read_tokens'));
    expect(before).toBeGreaterThan(0);
    for (const migration of MIGRATIONS.slice(0, before)) old.exec(migration);
    old.pragma(`user_version = ${before}`);
    old
      .prepare(
        "INSERT INTO runs (id, instruction, status, created_at, meta) VALUES ('run_1', 'x', 'completed', 5, '{}')",
      )
      .run();
    old
      .prepare(
        `INSERT INTO nodes (run_id, id, path, depth, provider, instruction, status, payload, created_at,
          input_tokens, output_tokens, cost_usd, subtree_input_tokens, subtree_output_tokens, subtree_cost_usd)
         VALUES ('run_1', 'n0', '0', 0, 'process', 'x', 'completed', @payload, 5, 100, 20, 0.25, 100, 20, 0.25)`,
      )
      .run({ payload: JSON.stringify(node('n0', '0').payload) });
    old.close();

    const store = open(path);
    const read = store.getNode('run_1', 'n0');
    expect(read?.usage).toEqual({ input_tokens: 100, output_tokens: 20, cost_usd: 0.25 });
    expect(read?.subtreeUsage).toEqual({ input_tokens: 100, output_tokens: 20, cost_usd: 0.25 });
    store.addUsage('run_1', 'n0', { input_tokens: 10, output_tokens: 0, cache_read_tokens: 8 });
    expect(store.getNode('run_1', 'n0')?.usage).toEqual({
      input_tokens: 110,
      output_tokens: 20,
      cache_read_tokens: 8,
      cost_usd: 0.25,
    });
    store.close();
    const raw = openSqlDatabase(path, driver);
    expect(raw.pragma('user_version')).toBe(MIGRATIONS.length);
    raw.close();
  });
});
