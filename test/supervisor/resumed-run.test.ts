import { describe, expect, it } from 'vitest';
import type { Outcome, SpawnPayload, TranscriptMessage } from '../../src/protocol/index.js';
import { SqliteStore } from '../../src/store/index.js';
import { ResumedRun } from '../../src/supervisor/resumed-run.js';
import type { NodeRecord, NodeStatus } from '../../src/supervisor/store-port.js';

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
    expect(resumed.turnAnnounced('n1')).toBe(true);
  });
});
