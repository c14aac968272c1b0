import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { redactPayload } from '../../src/protocol/index.js';
import { SqliteStore } from '../../src/store/index.js';
import type { NodeRecord } from '../../src/supervisor/index.js';
import { testPayload } from './payloads.js';

/**
 * A store holding one finished run of `count` nodes (a root, `mids` middle nodes, the rest leaves
 * spread under them), with the events a real run records for each: spawn, model calls, usage, a
 * tool call, the end. Written through the store's own API, as the supervisor writes it.
 */
export function seedBigRun(count: number, mids = 20): { db: string; runId: string } {
  const db = join(mkdtempSync(join(tmpdir(), 'arbor-seed-')), 'arbor.db');
  const store = new SqliteStore(db);
  const runId = 'run_big';
  const t0 = Date.now() - 60_000;
  store.createRun({
    id: runId,
    instruction: `Fan out over ${count} nodes.`,
    status: 'running',
    createdAt: t0,
    meta: {},
  });
  const payload = redactPayload(testPayload());
  const nodes: NodeRecord[] = [];
  for (let i = 0; i < count; i += 1) {
    const mid = i >= 1 && i <= mids;
    const parent = i === 0 ? undefined : mid ? 0 : 1 + ((i - mids - 1) % mids);
    const siblings = nodes.filter(
      (n) => n.parentId === (parent === undefined ? undefined : `n${parent}`),
    ).length;
    const parentPath = parent === undefined ? undefined : nodes[parent]?.path;
    const start = t0 + (i === 0 ? 0 : mid ? 100 + i * 50 : 2000 + i * 80);
    const end = i === 0 ? t0 + 59_000 : mid ? t0 + 55_000 + i * 20 : start + 3000;
    const node: NodeRecord = {
      runId,
      id: `n${i}`,
      ...(parent === undefined ? {} : { parentId: `n${parent}` }),
      path: parentPath === undefined ? '0' : `${parentPath}.${siblings + 1}`,
      depth: parent === undefined ? 0 : mid ? 1 : 2,
      provider: 'process',
      instruction: i === 0 ? 'Fan out.' : mid ? `Mid ${i}: delegate.` : `Leaf ${i}: look.`,
      status: 'spawning',
      payload,
      attempts: 1,
      createdAt: start,
      startedAt: start,
      usage: { input_tokens: 0, output_tokens: 0 },
    };
    nodes.push(node);
    store.createNode(node);
    const event = (ts: number, kind: string, data: Record<string, unknown>): void => {
      store.appendEvent({ runId, nodeId: node.id, ts, kind, data });
    };
    event(start, 'node.spawned', { mode: 'agent', provider: 'process', depth: node.depth });
    event(start + 400, 'model.call', {
      step: 0,
      endpoint: 0,
      model: 'scripted',
      ms: 300,
      input_tokens: 20,
      output_tokens: 5,
      finish_reason: 'stop',
      tool_calls: 1,
    });
    event(start + 450, 'tool.call', { id: 'c1', name: 'fs.read' });
    event(start + 900, 'tool.result', { id: 'c1', name: 'fs.read', is_error: false, ms: 450 });
    event(end, 'node.end', { status: 'completed', via: 'result', exit_code: 0 });
    store.appendTranscript(runId, node.id, start, {
      op: 'append',
      message: { role: 'user', text: node.instruction },
    });
    store.appendTranscript(runId, node.id, end, {
      op: 'append',
      message: { role: 'assistant', text: `done ${i}`, tool_calls: [] },
    });
    store.addUsage(runId, node.id, { input_tokens: 20, output_tokens: 5 });
    store.updateNode(runId, node.id, {
      status: 'completed',
      endedAt: end,
      outcome: {
        status: 'completed',
        partial: false,
        result: `done ${i}`,
        scheduled: [],
        subscriptions: [],
      },
    });
  }
  store.finishRun(runId, 'completed', t0 + 59_500);
  store.close();
  return { db, runId };
}
