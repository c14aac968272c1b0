import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { SqliteStore } from '../../src/store/index.js';
import type { EventRecord, NodeRecord } from '../../src/store/store-port.js';
import { fakeLlm } from '../helpers/fake-llm.js';
import { isAlive } from '../helpers/arbor-process.js';
import { ASKING_TREE } from '../helpers/resume-run.js';
import { runArbor } from '../helpers/run-arbor.js';
import {
  callRpc,
  serveProcess,
  userMessage,
  type RpcAnswer,
  type TaskJson,
} from '../helpers/serve.js';

const INSTRUCTION = 'Run the three-level listing, asking first.';

function taskOf(answer: RpcAnswer): TaskJson {
  const task = answer.result?.task;
  if (task === undefined) throw new Error(`expected a task, got ${JSON.stringify(answer)}`);
  return task;
}

/** A directory for `arbor serve` whose nodes park after 200 ms of only waiting. */
async function parkingServer() {
  const dir = mkdtempSync(join(tmpdir(), 'arbor-parking-'));
  const config = join(dir, 'arbor.toml');
  writeFileSync(config, '[serve]\npark_after = "200ms"\n');
  const llm = await fakeLlm(ASKING_TREE);
  const args = ['--intel', llm.url, '--model', 'm', '--sandbox', 'off', '--fs-read', '.'];
  const start = () => serveProcess([...args, '--config', config], { cwd: dir });
  /** The run's nodes and events as the store holds them now. */
  const read = (runId: string) => {
    const store = new SqliteStore(join(dir, '.arbor', 'arbor.db'));
    try {
      return { nodes: store.listNodes(runId), events: store.listEvents(runId) };
    } finally {
      store.close();
    }
  };
  return { dir, llm, start, read, db: join(dir, '.arbor', 'arbor.db') };
}

/** Waits until every node of the run is parked, and returns the pids its children had. */
async function allParked(
  read: (runId: string) => { nodes: NodeRecord[]; events: EventRecord[] },
  runId: string,
) {
  for (;;) {
    const { nodes, events } = read(runId);
    if (nodes.length === 3 && nodes.every((n) => n.status === 'parked'))
      return events.flatMap((e) => (e.kind === 'child.ready' ? [Number(e.data.pid)] : []));
    await delay(50);
  }
}

/** Answers the task's question over A2A; the tree finishes with the root's answer. */
async function answerYes(server: { url: string; token: string }, task: TaskJson): Promise<void> {
  const answered = await callRpc(server.url, server.token, 'SendMessage', {
    message: userMessage('yes', { taskId: task.id, contextId: task.contextId }),
  });
  expect(answered.result?.task?.status.state).toBe('TASK_STATE_COMPLETED');
  expect(JSON.stringify(answered.result?.task?.artifacts)).toContain('Root done');
}

describe('arbor serve parks nodes that only wait', () => {
  it('a gate three levels down: the node and its ancestors park, the answer arrives through A2A, the tree finishes with nothing repeated', async () => {
    const { llm, start, read, db } = await parkingServer();
    const server = await start();
    const asked = await callRpc(server.url, server.token, 'SendMessage', {
      message: userMessage(INSTRUCTION),
    });
    const task = taskOf(asked);
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const runId = String(task.metadata?.['arbor/runId']);
    const pids = await allParked(read, runId);
    expect(pids).toHaveLength(3);
    // Their processes are gone: waiting costs no process.
    await expect.poll(() => pids.filter(isAlive), { timeout: 10_000 }).toEqual([]);
    const metrics = await fetch(`${server.url}/metrics`, {
      headers: { authorization: `Bearer ${server.token}` },
    });
    expect(await metrics.text()).toMatch(/^arbor_nodes_parked 3$/m);
    // `arbor runs show` shows them waiting, parked, with their age.
    const shown = await runArbor(['runs', 'show', runId, '--db', db, '--json']);
    const views = (
      JSON.parse(shown.stdout) as { nodes: { status: string; parked_since?: string }[] }
    ).nodes;
    expect(views.map((n) => [n.status, typeof n.parked_since])).toEqual([
      ['parked', 'string'],
      ['parked', 'string'],
      ['parked', 'string'],
    ]);
    expect((await runArbor(['runs', 'show', runId, '--db', db])).stdout).toMatch(/parked \d/);

    await answerYes(server, task);
    // Two model calls per node, as without parking; one question; each listing made once.
    expect(llm.requests).toHaveLength(6);
    const { nodes, events } = read(runId);
    expect(nodes.map((n) => n.status)).toEqual(['completed', 'completed', 'completed']);
    const kinds = events.map((e) => e.kind);
    const count = (kind: string) => kinds.filter((k) => k === kind).length;
    expect([count('node.parked'), count('node.woken'), count('node.spawned')]).toEqual([3, 3, 3]);
    expect(count('gate.open')).toBe(1);
    expect(
      events.filter((e) => e.kind === 'tool.result' && e.data.name === 'fs.list'),
    ).toHaveLength(2);
  });

  it('the same with the server SIGKILLed while the tree lies parked', async () => {
    const { llm, start, read } = await parkingServer();
    const first = await start();
    const asked = await callRpc(first.url, first.token, 'SendMessage', {
      message: userMessage(INSTRUCTION),
    });
    const task = taskOf(asked);
    const runId = String(task.metadata?.['arbor/runId']);
    await allParked(read, runId);
    first.proc.signal('SIGKILL');
    await first.proc.exited;

    const second = await start();
    await second.proc.waitForStderr(/resumed 1 task run/);
    // Taken up again, the tree parks again while the question waits.
    await allParked(read, runId);
    await answerYes(second, task);
    expect(llm.requests).toHaveLength(6);
    const { nodes, events } = read(runId);
    expect(nodes.map((n) => n.status)).toEqual(['completed', 'completed', 'completed']);
    expect(events.filter((e) => e.kind === 'gate.closed').map((e) => e.data.answered)).toEqual([
      true,
    ]);
  });
});
