import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { textDigest } from '../../src/loop/index.js';
import { replayDir } from '../helpers/replay-fixtures.js';
import type { ArborRun } from '../helpers/run-arbor.js';

/** The run a replay recorded, from the line `arbor: replaying run A as B`. */
function replayIdOf(run: ArborRun): string {
  const id = / as (run_[a-z0-9]+)/.exec(run.stderr)?.[1];
  if (id === undefined) throw new Error(`no replay id in:\n${run.stderr}`);
  return id;
}

/** Each node's path, status and instruction, in path order. */
function shape(nodes: readonly { path: string; status: string; instruction: string }[]) {
  return nodes
    .map(({ path, status, instruction }) => ({ path, status, instruction }))
    .sort((a, b) => a.path.localeCompare(b.path));
}

describe('arbor replay', () => {
  it('replays a three-level tree from its records: same answer and tree, no model call, no file touched, no gate asked', async () => {
    const dir = await replayDir();
    const { runId, llm, stdout } = await dir.record();
    const calls = llm.requests.length;
    // What the leaf wrote is gone: a replay with recorded tool results must not write it again.
    await rm(join(dir.dir, 'out.txt'));

    const replay = await dir.arbor(['replay', runId, '--events', 'none']);
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.stdout).toBe(stdout);
    expect(replay.stderr).toContain('no divergence');
    expect(llm.requests.length).toBe(calls);
    expect(existsSync(join(dir.dir, 'out.txt'))).toBe(false);

    const original = dir.read(runId);
    const replayed = dir.read(replayIdOf(replay));
    expect(replayed.run?.meta).toMatchObject({ replay_of: runId, replay_tools: 'recorded' });
    expect(shape(replayed.nodes)).toEqual(shape(original.nodes));
    expect(replayed.nodes.map((n) => n.id).sort()).toEqual(original.nodes.map((n) => n.id).sort());
    // The gate's recorded answer is replayed: nobody is asked.
    expect(replayed.events.filter((e) => e.kind === 'gate.open')).toEqual([]);
    // Every model call of the replay was served from the record, and spent nothing.
    const served = replayed.events.filter((e) => e.kind === 'model.call');
    expect(served.length).toBe(original.events.filter((e) => e.kind === 'model.call').length);
    expect(served.every((e) => e.data.replayed === true && e.data.input_tokens === 0)).toBe(true);
  });

  it('finds a changed system prompt at the right node and call, and stops there', async () => {
    const dir = await replayDir();
    const { runId } = await dir.record();
    // The record of node 0.2 (Side) holds another prompt than this arbor builds for it now: as
    // when a persona, a playbook's prompt or arbor's preamble changed since the run was recorded.
    const { SqliteStore } = await import('../../src/store/index.js');
    const store = new SqliteStore(dir.db);
    const side = store.listNodes(runId).find((n) => n.path === '0.2');
    store.close();
    const Database = (await import('better-sqlite3')).default;
    const db = new Database(dir.db);
    const events = db
      .prepare('SELECT seq, kind, data FROM events WHERE run_id = ? AND node_id = ?')
      .all(runId, side?.id) as { seq: number; kind: string; data: string }[];
    const update = db.prepare('UPDATE events SET data = ? WHERE seq = ?');
    for (const event of events) {
      const data = JSON.parse(event.data) as Record<string, unknown>;
      if (event.kind === 'model.system') {
        data.text = String(data.text).replace(
          'You are an agent run by arbor.',
          'You are a careful agent.',
        );
        data.digest = textDigest(String(data.text));
      } else if (event.kind === 'model.call') {
        data.system_digest = textDigest(
          String(
            JSON.parse(events.find((e) => e.kind === 'model.system')?.data ?? '{}').text,
          ).replace('You are an agent run by arbor.', 'You are a careful agent.'),
        );
      } else continue;
      update.run(JSON.stringify(data), event.seq);
    }
    db.close();

    const replay = await dir.arbor(['replay', runId, '--events', 'none']);
    expect(replay.code).toBe(1);
    expect(replay.stderr).toContain('diverged at node 0.2, model call 1 (system), stopped');
    expect(replay.stderr).toContain('- line 1: You are a careful agent.');
    expect(replay.stderr).toContain('+ line 1: You are an agent run by arbor.');
    const found = dir.read(replayIdOf(replay)).events.filter((e) => e.kind === 'replay.divergence');
    expect(found[0]).toMatchObject({ nodeId: side?.id, data: { call: 1, what: 'system' } });
  });

  it('replays an exported run file in a fresh directory with a fresh store', async () => {
    const dir = await replayDir();
    const { runId, llm, stdout } = await dir.record();
    const calls = llm.requests.length;
    const exported = await dir.arbor(['runs', 'export', runId]);
    expect(exported.code, exported.stderr).toBe(0);
    const elsewhere = await mkdtemp(join(tmpdir(), 'arbor-replay-elsewhere-'));
    const file = join(elsewhere, 'run.json');
    await writeFile(file, exported.stdout);

    const replay = await dir.arbor(['replay', file, '--events', 'none'], elsewhere, {
      ARBOR_DB: join(elsewhere, 'fresh.db'),
    });
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.stdout).toBe(stdout);
    expect(replay.stderr).toContain('no divergence');
    expect(llm.requests.length).toBe(calls);
    expect(existsSync(join(elsewhere, 'out.txt'))).toBe(false);
  });
});
