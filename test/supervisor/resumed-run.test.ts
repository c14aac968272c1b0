import { describe, expect, it } from 'vitest';
import {
  LimitsSchema,
  type Outcome,
  type SpawnPayload,
  type TranscriptMessage,
} from '../../src/protocol/index.js';
import { SqliteStore } from '../../src/store/index.js';
import { ResumedRun, resumeTemplate } from '../../src/supervisor/resume/resumed-run.js';
import { resumedLimits } from '../../src/runtime/resume-plan.js';
import type { TreeNode } from '../../src/supervisor/tree.js';
import type { RootTemplate } from '../../src/supervisor/supervisor-options.js';
import type { NodeRecord, NodeStatus } from '../../src/store/store-port.js';

const usage = { input_tokens: 0, output_tokens: 0 };

function node(
  id: string,
  parentId: string | undefined,
  status: NodeStatus,
  at: number,
): NodeRecord {
  return {
    runId: 'r',
    id,
    ...(parentId === undefined ? {} : { parentId }),
    path: id,
    depth: parentId === undefined ? 0 : 1,
    provider: 'process',
    instruction: 'Leaf: answer.',
    status,
    payload: {} as SpawnPayload,
    attempts: 1,
    createdAt: at,
    usage,
  };
}

const outcome = (result: string): Outcome => ({
  status: 'completed',
  partial: false,
  result,
  scheduled: [],
  subscriptions: [],
});

/** A store holding run `r` whose nodes recorded these transcripts. */
function recorded(transcripts: Record<string, (TranscriptMessage | { turn: Outcome })[]>) {
  const store = new SqliteStore(':memory:');
  store.createRun({ id: 'r', instruction: 'x', status: 'interrupted', createdAt: 0, meta: {} });
  for (const [id, entries] of Object.entries(transcripts))
    for (const entry of entries)
      store.appendTranscript(
        'r',
        id,
        1,
        'turn' in entry ? { op: 'turn', outcome: entry.turn } : { op: 'append', message: entry },
      );
  return store;
}

const call = (id: string, name: string, args: Record<string, unknown>): TranscriptMessage => ({
  role: 'assistant',
  tool_calls: [{ id, name, args }],
});
const result = (id: string, name: string, content: unknown): TranscriptMessage => ({
  role: 'tool',
  id,
  name,
  content,
  is_error: false,
});

describe('ResumedRun', () => {
  it('takes the children whose spawn had returned out of the matching of repeated spawns', () => {
    const store = recorded({
      n0: [
        { role: 'user', text: 'Ask twice.' },
        call('c1', 'subagent.run', { instruction: 'Leaf: answer.' }),
        result('c1', 'subagent.run', { handle: 'n1', status: 'completed' }),
        call('c2', 'subagent.run', { instruction: 'Leaf: answer.' }),
      ],
    });
    const resumed = new ResumedRun('r', store, {
      nodes: [
        node('n0', undefined, 'interrupted', 0),
        node('n1', 'n0', 'completed', 1),
        node('n2', 'n0', 'interrupted', 2),
      ],
    });
    const returned = resumed.returned('n0');
    expect(returned.map((r) => [r.reattach.kind, r.reattach.record.id])).toEqual([['ended', 'n1']]);
    expect(returned[0]?.args).toEqual({ instruction: 'Leaf: answer.' });
    // The repeated spawn of the step in flight is the second child, not the first.
    expect(resumed.claim('n0', 'Leaf: answer.')?.record.id).toBe('n2');
    expect(resumed.claim('n0', 'Leaf: answer.')).toBeUndefined();
  });

  it('says where a warm conversation stood: turns marked, turns read, messages not taken in', () => {
    const store = recorded({
      n0: [
        call('c1', 'subagent.run', { instruction: 'Warm: be ready.', mode: 'warm' }),
        result('c1', 'subagent.run', { handle: 'n1', status: 'running', mode: 'warm' }),
        call('c2', 'subagent.await', { handle: 'n1' }),
        result('c2', 'subagent.await', { handle: 'n1', status: 'completed', result: 'W1' }),
        call('c3', 'subagent.await', { handle: 'n1', timeout_ms: 10 }),
        result('c3', 'subagent.await', { handle: 'n1', status: 'running', timed_out: true }),
        call('c4', 'subagent.send', { handle: 'n1', message: 'second' }),
        result('c4', 'subagent.send', { handle: 'n1', delivered: true }),
        call('c5', 'subagent.send', { handle: 'n1', message: 'third' }),
        result('c5', 'subagent.send', { handle: 'n1', delivered: true }),
      ],
      n1: [
        { role: 'user', text: 'Warm: be ready.' },
        { role: 'assistant', text: 'W1', tool_calls: [] },
        { turn: outcome('W1') },
        { role: 'user', text: 'second' },
        { role: 'assistant', text: 'W2', tool_calls: [] },
        { turn: outcome('W2') },
      ],
    });
    const resumed = new ResumedRun('r', store, {
      nodes: [node('n0', undefined, 'interrupted', 0), node('n1', 'n0', 'interrupted', 1)],
    });
    expect(resumed.warmState('n0', 'n1')).toEqual({
      turns: [outcome('W1'), outcome('W2')],
      awaited: 1,
      unread: ['third'],
    });
    expect(resumed.answeredTurn('n1')).toEqual(outcome('W2'));
  });

  it('adopts a child whose result was an error, or was fenced as untrusted text', () => {
    const fenced = `<<untrusted source="subagent.run">>${JSON.stringify({ handle: 'n2', status: 'completed', result: 'read the web' })}<<end>>`;
    const store = recorded({
      n0: [
        call('c1', 'subagent.run', { instruction: 'Leaf: answer.' }),
        {
          role: 'tool',
          id: 'c1',
          name: 'subagent.run',
          content: { handle: 'n1', status: 'failed' },
          is_error: true,
        },
        call('c2', 'subagent.run', { instruction: 'Leaf: answer.' }),
        result('c2', 'subagent.run', fenced),
        call('c3', 'subagent.run', { instruction: 'Leaf: answer.' }),
      ],
    });
    const resumed = new ResumedRun('r', store, {
      nodes: [
        node('n0', undefined, 'interrupted', 0),
        node('n1', 'n0', 'failed', 1),
        node('n2', 'n0', 'completed', 2),
        node('n3', 'n0', 'interrupted', 3),
      ],
    });
    expect(resumed.returned('n0').map((r) => r.reattach.record.id)).toEqual(['n1', 'n2']);
    expect(resumed.claim('n0', 'Leaf: answer.')?.record.id).toBe('n3');
  });

  it('reads the handle of awaits and sends from their arguments, fenced results or not', () => {
    const store = recorded({
      n0: [
        call('c1', 'subagent.await', { handle: 'n1' }),
        result('c1', 'subagent.await', '<<untrusted>>{"status":"completed","result":"W1"}<<end>>'),
        call('c2', 'subagent.await', { handle: 'n1', timeout_ms: 5 }),
        result('c2', 'subagent.await', '{"handle":"n1","status":"running","timed_out":true}'),
        call('c3', 'subagent.await', { handle: 'n9' }),
        result('c3', 'subagent.await', { handle: 'n9', status: 'completed' }),
      ],
      n1: [{ role: 'user', text: 'Warm: be ready.' }],
    });
    const resumed = new ResumedRun('r', store, {
      nodes: [node('n0', undefined, 'interrupted', 0)],
    });
    expect(resumed.warmState('n0', 'n1').awaited).toBe(1);
  });
});

describe('resumed limits', () => {
  it("counts a one-shot deadline down by the active time, never a warm session's per-turn one", () => {
    const limits = LimitsSchema.parse({ max_steps: 10, deadline_ms: 60_000, max_depth: 3 });
    expect(resumedLimits(limits, 45_000, undefined).deadline_ms).toBe(15_000);
    expect(resumedLimits(limits, 45_000, undefined, true).deadline_ms).toBe(60_000);
    expect(resumedLimits(limits, 45_000, 120_000, true).deadline_ms).toBe(120_000);
  });

  it("takes from a warm session's step limit only the steps of the turn in flight", () => {
    const transcript: TranscriptMessage[] = [
      { role: 'user', text: 'first' },
      { role: 'assistant', text: 'one', tool_calls: [] },
      { role: 'user', text: 'second' },
      call('c1', 'fs.list', {}),
      result('c1', 'fs.list', []),
    ];
    const node = { steps: 2 } as TreeNode;
    const template = {
      instruction: 'x',
      intelligence: { endpoints: [{ url: 'http://127.0.0.1:1/v1' }], model: 'm' },
      limits: { max_steps: 5 },
    } as RootTemplate;
    expect(resumeTemplate({ ...template, warm: true }, node, transcript).limits?.max_steps).toBe(4);
    expect(resumeTemplate({ ...template, warm: false }, node, transcript).limits?.max_steps).toBe(
      3,
    );
  });
});
