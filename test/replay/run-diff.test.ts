import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { redactPayload, type TranscriptMessage } from '../../src/protocol/index.js';
import { diffRuns, readRecordedRun, RunDiffSchema } from '../../src/replay/index.js';
import { SqliteStore } from '../../src/store/index.js';
import { testPayload } from '../helpers/payloads.js';

interface SeedNode {
  path: string;
  messages: TranscriptMessage[];
  status?: 'completed' | 'failed';
  result?: string;
}

const ask = (text: string): TranscriptMessage => ({ role: 'user', text });
const call = (id: string, name: string, args: Record<string, unknown>): TranscriptMessage => ({
  role: 'assistant',
  text: 'working',
  tool_calls: [{ id, name, args }],
});
const result = (id: string, name: string, content: unknown): TranscriptMessage => ({
  role: 'tool',
  id,
  name,
  content,
  is_error: false,
});
const answer = (text: string): TranscriptMessage => ({ role: 'assistant', text, tool_calls: [] });

/** A root that runs one child, and the child `0.1` that reads two files, as a run records them. */
function tree(over: { readB?: string; childAnswer?: string; ids?: string } = {}): SeedNode[] {
  const id = over.ids ?? 'c';
  const childAnswer = over.childAnswer ?? 'both read';
  return [
    {
      path: '0',
      messages: [
        ask('Delegate the reading.'),
        call(`${id}0`, 'subagent.run', { instruction: 'Read a and b.' }),
        result(`${id}0`, 'subagent.run', childAnswer),
        answer(`Root: ${childAnswer}`),
      ],
      result: `Root: ${childAnswer}`,
    },
    {
      path: '0.1',
      messages: [
        ask('Read a and b.'),
        call(`${id}1`, 'fs.read', { path: 'a' }),
        result(`${id}1`, 'fs.read', 'A'),
        call(`${id}2`, 'fs.read', { path: over.readB ?? 'b' }),
        result(`${id}2`, 'fs.read', 'B'),
        answer(childAnswer),
      ],
      result: childAnswer,
    },
  ];
}

/** Writes a run of these nodes through the store's own API, as the supervisor does. */
function seed(store: SqliteStore, runId: string, nodes: readonly SeedNode[]): void {
  const t0 = Date.now() - 10_000 + Math.floor(Math.random() * 1000);
  store.createRun({ id: runId, instruction: 'Read.', status: 'running', createdAt: t0, meta: {} });
  nodes.forEach((seedNode, i) => {
    const parent = seedNode.path.includes('.')
      ? nodes.findIndex((n) => n.path === seedNode.path.slice(0, seedNode.path.lastIndexOf('.')))
      : -1;
    const id = `n${i}`;
    store.createNode({
      runId,
      id,
      ...(parent < 0 ? {} : { parentId: `n${parent}` }),
      path: seedNode.path,
      depth: seedNode.path.split('.').length - 1,
      provider: 'process',
      instruction: seedNode.messages[0]?.role === 'user' ? seedNode.messages[0].text : '',
      status: 'running',
      payload: redactPayload(testPayload()),
      attempts: 1,
      createdAt: t0,
      startedAt: t0,
      usage: { input_tokens: 0, output_tokens: 0 },
    });
    seedNode.messages.forEach((message, at) => {
      // Timestamps differ from run to run; they never count.
      store.appendTranscript(runId, id, t0 + at, {
        op: 'append',
        message: { ...message, ts: t0 + at },
      });
      if (message.role === 'assistant') {
        store.appendEvent({ runId, nodeId: id, ts: t0 + at, kind: 'model.call', data: {} });
        store.addUsage(runId, id, { input_tokens: 100, output_tokens: 10, cache_read_tokens: 60 });
      }
    });
    const status = seedNode.status ?? 'completed';
    store.updateNode(runId, id, {
      status,
      endedAt: t0 + 5000,
      outcome: {
        status,
        partial: false,
        result: seedNode.result ?? null,
        scheduled: [],
        subscriptions: [],
      },
    });
  });
  store.finishRun(runId, nodes[0]?.status ?? 'completed', t0 + 6000);
}

function diffOf(a: readonly SeedNode[], b: readonly SeedNode[]) {
  const store = new SqliteStore(join(mkdtempSync(join(tmpdir(), 'arbor-diff-')), 'arbor.db'));
  try {
    seed(store, 'run_a', a);
    seed(store, 'run_b', b);
    const read = (id: string) => {
      const run = readRecordedRun(store, id);
      if (run === undefined) throw new Error(`no ${id}`);
      return run;
    };
    // The shape `--json` prints is the documented one.
    return RunDiffSchema.strict().parse(diffRuns(read('run_a'), read('run_b')));
  } finally {
    store.close();
  }
}

describe('diffRuns over two recorded runs', () => {
  it('finds no divergence in the same run recorded twice, other tool-call ids and times aside', () => {
    const diff = diffOf(tree(), tree({ ids: 'other-' }));
    expect(diff.first_divergence).toBeNull();
    expect(diff.nodes.map((n) => n.path)).toEqual(['0', '0.1']);
  });

  it('names a different tool argument at step 2 of node 0.1, not the root it reached', () => {
    const diff = diffOf(tree(), tree({ readB: 'c', childAnswer: 'read a and c' }));
    expect(diff.first_divergence).toEqual({
      path: '0.1',
      step: 2,
      what: 'tool_calls',
      a: 'fs.read {"path":"b"}',
      b: 'fs.read {"path":"c"}',
    });
  });

  it('names a node only one run has', () => {
    const b = tree();
    b.push({ path: '0.2', messages: [ask('Check again.'), answer('checked')], result: 'checked' });
    const diff = diffOf(tree(), b);
    expect(diff.first_divergence).toEqual({
      path: '0.2',
      step: null,
      what: 'node',
      a: null,
      b: 'completed: Check again.',
    });
    expect(diff.nodes.find((n) => n.path === '0.2')).toMatchObject({ a: null, b: { steps: 1 } });
  });

  it('names a different outcome when the transcripts are the same, and shows both outcomes', () => {
    const b = tree();
    const root = b[0];
    if (root === undefined) throw new Error('no root');
    b[0] = { ...root, status: 'failed', result: 'gave up' };
    const diff = diffOf(tree(), b);
    expect(diff.first_divergence).toEqual({
      path: '0',
      step: null,
      what: 'outcome',
      a: 'completed: Root: both read',
      b: 'failed: gave up',
    });
    expect(diff.runs.a).toMatchObject({ status: 'completed', result: 'Root: both read' });
    expect(diff.runs.b).toMatchObject({ status: 'failed', result: 'gave up' });
  });

  it('puts each node’s tools, steps and usage, and each run’s totals, side by side', () => {
    const diff = diffOf(tree(), tree({ readB: 'c' }));
    expect(diff.nodes[1]).toMatchObject({
      path: '0.1',
      a: { status: 'completed', steps: 3, tools: ['fs.read', 'fs.read'] },
      b: { status: 'completed', steps: 3, tools: ['fs.read', 'fs.read'] },
    });
    expect(diff.nodes[1]?.a?.usage).toEqual({
      input_tokens: 300,
      output_tokens: 30,
      cache_read_tokens: 180,
    });
    expect(diff.runs.a).toMatchObject({
      run_id: 'run_a',
      nodes: 2,
      steps: 5,
      input_tokens: 500,
      output_tokens: 50,
      cache_read_tokens: 300,
    });
    expect(diff.runs.b.run_id).toBe('run_b');
  });

  it('reports a transcript that ends early, at the step whose request it lacks', () => {
    const b = tree();
    const child = b[1];
    if (child === undefined) throw new Error('no child');
    b[1] = { ...child, messages: child.messages.slice(0, 3), status: 'failed' };
    const diff = diffOf(tree(), b);
    expect(diff.first_divergence).toMatchObject({
      path: '0.1',
      step: 2,
      what: 'ended',
      b: null,
    });
    expect(diff.first_divergence?.a).toContain('fs.read {"path":"b"}');
  });
});
