import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SqliteStore } from '../../src/store/index.js';
import {
  failResponder,
  HumanGates,
  LiveNode,
  storeResponder,
  Tree,
  type HumanResponder,
} from '../../src/supervisor/index.js';
import { serveInternal, type InternalToolContext } from '../../src/supervisor/internal/index.js';
import { MEMORY_BOUNDS } from '../../src/tools/index.js';
import { testPayload } from '../helpers/payloads.js';

function setup(
  now: { value: number },
  responderFor: (store: SqliteStore) => HumanResponder = () => failResponder,
) {
  const store = new SqliteStore(join(mkdtempSync(join(tmpdir(), 'arbor-internal-')), 'arbor.db'));
  const responder = responderFor(store);
  store.createRun({ id: 'r', instruction: 'x', status: 'running', createdAt: 0, meta: {} });
  const tree = new Tree();
  const live = new LiveNode(tree.mintRoot('root', 0), testPayload(), 'root', 'process');
  const context: InternalToolContext = {
    subagents: {
      spawn: () => Promise.resolve({ ok: false as const, reason: 'no' }),
      children: () => [],
      stopSubtree: () => Promise.resolve(),
      inject: () => false,
      subtreeUsage: () => ({ input_tokens: 0, output_tokens: 0 }),
    },
    store,
    humans: new HumanGates({ store, runId: 'r', responder, now: () => now.value }),
    now: () => now.value,
  };
  let id = 0;
  const call = (name: string, args: Record<string, unknown>) =>
    serveInternal(context, live, { type: 'tool_request', id: ++id, name, args });
  return { store, call };
}

describe('memory tools', () => {
  it('stores durable values, lists by prefix, forgets after the TTL and deletes', async () => {
    const now = { value: 1_000 };
    const { call } = setup(now);
    expect(await call('memory.set', { key: 'notes/a', value: { n: 1 } })).toEqual({
      result: { key: 'notes/a', stored: true },
      is_error: false,
    });
    await call('memory.set', { key: 'notes/b', value: 'short-lived', ttl_ms: 500 });
    await call('memory.set', { key: 'other', value: 3 });
    expect(await call('memory.list', { prefix: 'notes/' })).toEqual({
      result: { keys: ['notes/a', 'notes/b'] },
      is_error: false,
    });
    expect(await call('memory.get', { key: 'notes/b' })).toMatchObject({
      result: { found: true, value: 'short-lived', expires_in_ms: 500 },
    });
    now.value = 1_600;
    expect(await call('memory.get', { key: 'notes/b' })).toEqual({
      result: { key: 'notes/b', found: false },
      is_error: false,
    });
    expect(await call('memory.list', {})).toEqual({
      result: { keys: ['notes/a', 'other'] },
      is_error: false,
    });
    expect(await call('memory.delete', { key: 'notes/a' })).toEqual({
      result: { key: 'notes/a', deleted: true },
      is_error: false,
    });
    expect(await call('memory.delete', { key: 'notes/a' })).toEqual({
      result: { key: 'notes/a', deleted: false },
      is_error: false,
    });
  });

  it('treats LIKE wildcards in a prefix literally', async () => {
    const { call } = setup({ value: 0 });
    await call('memory.set', { key: 'a%b', value: 1 });
    await call('memory.set', { key: 'axb', value: 2 });
    expect(await call('memory.list', { prefix: 'a%' })).toEqual({
      result: { keys: ['a%b'] },
      is_error: false,
    });
  });

  it('answers bad arguments with an error naming the field', async () => {
    const { call } = setup({ value: 0 });
    expect(await call('memory.set', { key: '', value: 1 })).toMatchObject({
      is_error: true,
      result: expect.stringContaining('Invalid arguments for `memory.set`: `key`') as unknown,
    });
    expect(await call('nope.tool', {})).toEqual({
      result: 'The supervisor does not serve a tool named `nope.tool`.',
      is_error: true,
    });
  });
});

describe('the bounds of memory', () => {
  const KEY = MEMORY_BOUNDS.keyChars;
  it.each([
    [
      'a value past 64 KiB as JSON',
      'memory.set',
      { key: 'k', value: 'x'.repeat(MEMORY_BOUNDS.valueBytes) },
      /`value`: expected a value of at most 65536 bytes as JSON \(64 KiB\), got 65538 bytes; store a summary/,
    ],
    [
      'a value whose UTF-8 is past 64 KiB although its characters are not',
      'memory.set',
      { key: 'k', value: 'é'.repeat(MEMORY_BOUNDS.valueBytes / 2) },
      /got 65538 bytes/,
    ],
    ['a key past 512 characters', 'memory.set', { key: 'k'.repeat(KEY + 1), value: 1 }, /`key`/],
    ['a key past 512 characters to read', 'memory.get', { key: 'k'.repeat(KEY + 1) }, /`key`/],
    ['a key past 512 characters to delete', 'memory.delete', { key: 'k'.repeat(KEY + 1) }, /`key`/],
    ['a prefix past 512 characters', 'memory.list', { prefix: 'k'.repeat(KEY + 1) }, /`prefix`/],
  ])('refuses %s with a tool error naming the field', async (_name, tool, args, message) => {
    const { call, store } = setup({ value: 0 });
    const answer = await call(tool, args);
    expect(answer.is_error).toBe(true);
    expect(answer.result).toMatch(message);
    expect(store.memoryList('', 0, 10)).toEqual([]);
  });

  it('takes a value of exactly 64 KiB as JSON, and a key of 512 characters', async () => {
    const { call } = setup({ value: 0 });
    const value = 'x'.repeat(MEMORY_BOUNDS.valueBytes - 2);
    const key = 'k'.repeat(KEY);
    expect(await call('memory.set', { key, value })).toMatchObject({ is_error: false });
    expect(await call('memory.get', { key })).toMatchObject({ result: { found: true, value } });
  });

  it('holds at most 10,000 entries: a new key is refused, an existing one may change', async () => {
    const { call, store } = setup({ value: 0 });
    for (let i = 0; i < MEMORY_BOUNDS.entries; i += 1)
      store.memorySet({ key: `k${i}`, value: i, updatedAt: 0 });
    const refused = await call('memory.set', { key: 'one-more', value: 1 });
    expect(refused).toMatchObject({ is_error: true });
    expect(refused.result).toMatch(
      /Memory holds 10000 entries, the most it may: `one-more` was not stored/,
    );
    expect(await call('memory.set', { key: 'k7', value: 'changed' })).toMatchObject({
      is_error: false,
    });
    await call('memory.delete', { key: 'k1' });
    expect(await call('memory.set', { key: 'one-more', value: 1 })).toMatchObject({
      is_error: false,
    });
  });
});

describe('ask_human', () => {
  it('fails at once when nobody can answer, and records the gate', async () => {
    const { call, store } = setup({ value: 5 });
    expect(await call('ask_human', { question: 'Deploy?' })).toEqual({
      result: 'No answer: no person is available to answer (ask fallback: fail).',
      is_error: true,
    });
    expect(store.listGates({ runId: 'r' })).toMatchObject([
      { id: 'g1', question: 'Deploy?', status: 'failed', via: 'fallback' },
    ]);
  });

  it('waits for an answer written to the store from elsewhere', async () => {
    const { call, store } = setup({ value: 5 }, (own) => storeResponder(own, 10));
    const asked = call('ask_human', { question: 'Which region?', choices: ['eu', 'us'] });
    // Answer the gate as `arbor gate answer` would, once it is open.
    while (store.listGates({ runId: 'r', status: 'open' }).length === 0)
      await new Promise((resolve) => setTimeout(resolve, 5));
    expect(
      store.closeGate('r', 'g1', { status: 'answered', answer: 'eu', via: 'cli', closedAt: 6 }),
    ).toBe(true);
    expect(await asked).toEqual({ result: { answer: 'eu' }, is_error: false });
    expect(store.getGate('r', 'g1')).toMatchObject({
      status: 'answered',
      answer: 'eu',
      via: 'cli',
      payload: { choices: ['eu', 'us'] },
    });
  });
});
