import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SqliteStore } from '../../src/store/index.js';
import { runArbor } from '../helpers/run-arbor.js';

/** A store with one run and two open questions: one with choices, one without. */
function storeWithGates(): string {
  const db = path.join(mkdtempSync(path.join(tmpdir(), 'arbor-gate-')), 'arbor.db');
  const store = new SqliteStore(db);
  store.createRun({ id: 'run_g', instruction: 'x', status: 'running', createdAt: 1, meta: {} });
  store.openGate({
    runId: 'run_g',
    id: 'g1',
    question: 'Which colour?',
    payload: { choices: ['red', 'green', '3'] },
    status: 'open',
    createdAt: 2,
  });
  store.openGate({
    runId: 'run_g',
    id: 'g2',
    question: 'How many?',
    payload: {},
    status: 'open',
    createdAt: 3,
  });
  store.close();
  return db;
}

function answerOf(db: string, id: string): string | undefined {
  const store = new SqliteStore(db);
  try {
    return store.getGate('run_g', id)?.answer;
  } finally {
    store.close();
  }
}

describe('arbor gate', () => {
  it('lists a question with its choices numbered as the terminal shows them', async () => {
    const db = storeWithGates();
    const list = await runArbor(['gate', 'list', '--db', db]);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain('Which colour? [1) red / 2) green / 3) 3]');
    expect(list.stdout).toMatch(/How many\?\n/);
  });

  it('stores the choice a number names, a choice that is itself a number as typed, and any answer to a gate without choices', async () => {
    const db = storeWithGates();
    expect((await runArbor(['gate', 'answer', 'run_g', 'g1', '2', '--db', db])).code).toBe(0);
    expect(answerOf(db, 'g1')).toBe('green');
    expect((await runArbor(['gate', 'answer', 'run_g', 'g2', '2', '--db', db])).code).toBe(0);
    expect(answerOf(db, 'g2')).toBe('2');
    const listed = await runArbor(['gate', 'list', '--all', '--db', db]);
    expect(listed.stdout).toContain('→ green');
  });
});
