import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { textDigest } from '../../src/loop/index.js';
import { fakeLlm } from '../helpers/fake-llm.js';
import { replayDir, treePlaybook } from '../helpers/replay-fixtures.js';
import { FAST_ENV } from '../helpers/arbor-process.js';
import { readRun, resumeDir, runIdOf } from '../helpers/resume-run.js';
import { runArbor } from '../helpers/run-arbor.js';
import type { ArborRun } from '../helpers/run-arbor.js';

function replayIdOf(run: ArborRun): string {
  const id = / as (run_[a-z0-9]+)/.exec(run.stderr)?.[1];
  if (id === undefined) throw new Error(`no replay id in:\n${run.stderr}`);
  return id;
}

/** Rewrites the recorded system prompt of the node at `path` as a changed prompt would differ. */
async function changePrompt(db: string, runId: string, path: string): Promise<void> {
  const Database = (await import('better-sqlite3')).default;
  const sql = new Database(db);
  const node = sql
    .prepare('SELECT id FROM nodes WHERE run_id = ? AND path = ?')
    .get(runId, path) as {
    id: string;
  };
  const events = sql
    .prepare(
      "SELECT seq, kind, data FROM events WHERE run_id = ? AND node_id = ? AND kind IN ('model.system', 'model.call')",
    )
    .all(runId, node.id) as { seq: number; kind: string; data: string }[];
  const system = events.find((e) => e.kind === 'model.system');
  const text = String((JSON.parse(system?.data ?? '{}') as { text: string }).text).replace(
    'You are an agent run by arbor.',
    'You are a careful agent.',
  );
  for (const event of events) {
    const data = JSON.parse(event.data) as Record<string, unknown>;
    if (event.kind === 'model.system') Object.assign(data, { text, digest: textDigest(text) });
    else data.system_digest = textDigest(text);
    sql.prepare('UPDATE events SET data = ? WHERE seq = ?').run(JSON.stringify(data), event.seq);
  }
  sql.close();
}

describe('arbor replay: tools live, continuing live, warm sessions, in-process nodes', () => {
  it('--tools live runs the tools again under the recorded grant, but replays the recorded gate answer', async () => {
    const dir = await replayDir();
    const { runId, llm, stdout } = await dir.record();
    const calls = llm.requests.length;
    await rm(join(dir.dir, 'out.txt'));
    const replay = await dir.arbor(['replay', runId, '--tools', 'live', '--events', 'none']);
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.stdout).toBe(stdout);
    expect(replay.stderr).toContain('no divergence');
    // The leaf's fs.write ran again; no model was called; nobody was asked.
    expect(existsSync(join(dir.dir, 'out.txt'))).toBe(true);
    expect(llm.requests.length).toBe(calls);
    const replayed = readRun(dir.db, replayIdOf(replay));
    expect(replayed.events.filter((e) => e.kind === 'gate.open')).toEqual([]);
  });

  it('a live tool result that differs from the record is a divergence at the next call', async () => {
    const dir = await replayDir();
    const { runId } = await dir.record();
    // out.txt is still there: the leaf's fs.write now replaces it, where the record created it.
    const replay = await dir.arbor(['replay', runId, '--tools', 'live', '--events', 'none']);
    expect(replay.code).toBe(1);
    expect(replay.stderr).toContain('diverged at node 0.1.1, model call 2 (tool_result), stopped');
    expect(replay.stderr).toMatch(/- \[tool result\] fs\.write: Created /);
    expect(replay.stderr).toMatch(/\+ \[tool result\] fs\.write: Replaced /);
  });

  it('--continue-live goes on live from a divergence: the changed node and those its answer reaches', async () => {
    const dir = await replayDir();
    const { runId, llm } = await dir.record();
    const calls = llm.requests.length;
    await changePrompt(dir.db, runId, '0.2');
    const other = await fakeLlm(treePlaybook('Side, asked anew: listed.'));
    const replay = await dir.arbor([
      'replay',
      runId,
      '--continue-live',
      '--intel',
      other.url,
      '--model',
      'm',
      '--ask-fallback',
      'fail',
      '--events',
      'none',
    ]);
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.stderr).toContain('diverged at node 0.2, model call 1 (system), going on live');
    expect(replay.stderr).toContain(
      'diverged at node 0, model call 2 (tool_result), going on live',
    );
    expect(llm.requests.length).toBe(calls);
    // Side's two calls and the root's last two went to the model given now; Mid and Leaf did not.
    const firsts = other.requests.map(
      (r) =>
        (r.body as { messages: { role: string; content: string }[] }).messages.find(
          (m) => m.role === 'user',
        )?.content,
    );
    expect(firsts).toEqual([
      'Side: list the directory.',
      'Side: list the directory.',
      'Run the tree.',
      'Run the tree.',
    ]);
    const replayed = readRun(dir.db, replayIdOf(replay));
    // After the divergence the root's gate was asked again (and, with no one to ask, failed).
    expect(replayed.events.filter((e) => e.kind === 'gate.open')).toHaveLength(1);
  });

  it('replays a warm session turn by turn, each message from the record', async () => {
    const dir = await resumeDir({
      scripts: [
        { match: { contains: 'second' }, steps: [{ text: 'A2: second answered.' }] },
        { steps: [{ text: 'A1: first answered.' }] },
      ],
    });
    const env = { ...FAST_ENV, ARBOR_DB: dir.db };
    const args = ['--intel', dir.llm.url, '--model', 'm', '--events', 'ndjson', '--warm'];
    const run = await runArbor(['run', ...args, 'Say first.'], {
      cwd: dir.dir,
      env,
      input: 'second\n',
    });
    expect(run.code, run.stderr).toBe(0);
    expect(dir.llm.requests).toHaveLength(2);

    const replay = await runArbor(['replay', runIdOf(run), '--events', 'none'], {
      cwd: dir.dir,
      env,
    });
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.stdout).toBe('A1: first answered.\nA2: second answered.\n');
    expect(replay.stderr).toContain('no divergence');
    expect(dir.llm.requests).toHaveLength(2);
  });

  it('replays nodes in-process (the spawn provider) as it replays process children', async () => {
    const dir = await replayDir();
    const playbook = treePlaybook();
    const root = playbook.scripts.at(-1);
    const spawns = root?.steps[0]?.tool_calls as { args: Record<string, unknown> }[];
    for (const call of spawns) call.args.provider = 'spawn';
    const { runId, stdout } = await dir.record(playbook);
    expect(dir.read(runId).nodes.filter((n) => n.provider === 'spawn')).toHaveLength(2);
    const replay = await dir.arbor(['replay', runId, '--events', 'none']);
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.stdout).toBe(stdout);
    expect(replay.stderr).toContain('no divergence');
  });
});
