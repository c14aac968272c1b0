import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ArborProcess, FAST_ENV } from '../helpers/arbor-process.js';
import { fakeLlm } from '../helpers/fake-llm.js';
import { changePrompt, replayDir, replayIdOf, treePlaybook } from '../helpers/replay-fixtures.js';

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
    changePrompt(dir.db, runId, '0.2');
    const side = dir.read(runId).nodes.find((n) => n.path === '0.2');
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

describe('arbor replay --from (fork) and arbor runs diff', () => {
  it('forks from a middle step: replays everything before it, runs live from there and nowhere before', async () => {
    const dir = await replayDir();
    const { runId, llm } = await dir.record();
    const recordedCalls = llm.requests.length;
    await rm(join(dir.dir, 'out.txt'));
    const other = await fakeLlm(treePlaybook('Side forked: another answer.'));

    const fork = new ArborProcess(
      ['replay', runId, '--from', '0.2@2', '--intel', other.url, '--model', 'm'].concat(
        '--events',
        'ndjson',
        '--ask-fallback',
        'wait',
      ),
      { cwd: dir.dir, env: { ...FAST_ENV, ARBOR_DB: dir.db } },
    );
    // After the fork point the root goes live too, and its gate is asked again: answered here.
    const gate = await fork.waitForEvent('gate.open');
    const answered = await dir.arbor([
      'gate',
      'answer',
      String(gate.run_id),
      String(gate.gate),
      'no',
    ]);
    expect(answered.code, answered.stderr).toBe(0);
    const ended = await fork.exited;
    expect(ended.code, fork.stderr).toBe(0);
    expect(fork.stdout).toContain('Root done');

    expect(llm.requests.length).toBe(recordedCalls);
    // Live: Side's second call, then the root's second and third; nothing of Mid or the Leaf.
    const firstUser = (r: { body: unknown }) =>
      (r.body as { messages: { role: string; content: string }[] }).messages.find(
        (m) => m.role === 'user',
      )?.content;
    expect(other.requests.map(firstUser)).toEqual([
      'Side: list the directory.',
      'Run the tree.',
      'Run the tree.',
    ]);
    expect(existsSync(join(dir.dir, 'out.txt'))).toBe(false);
    const forked = dir.read(String(gate.run_id));
    expect(forked.run?.meta).toMatchObject({
      replay_of: runId,
      forked_from: { run: runId, path: '0.2', step: 2 },
    });
    const divergences = forked.events
      .filter((e) => e.kind === 'replay.divergence')
      .map((e) => [forked.nodes.find((n) => n.id === e.nodeId)?.path, e.data.call, e.data.what]);
    expect(divergences).toEqual([
      ['0.2', 2, 'fork'],
      ['0', 2, 'tool_result'],
    ]);
  });

  it('runs diff names the first divergence of two runs of one task under different playbooks', async () => {
    const dir = await replayDir();
    const a = await dir.record();
    // The same world for both: the leaf creates out.txt afresh each time.
    await rm(join(dir.dir, 'out.txt'));
    const b = await dir.record(treePlaybook('Side done: another listing.'));
    const diff = await dir.arbor(['runs', 'diff', a.runId, b.runId, '--json']);
    expect(diff.code, diff.stderr).toBe(0);
    const found = (JSON.parse(diff.stdout) as { first_divergence: unknown }).first_divergence;
    expect(found).toMatchObject({
      path: '0.2',
      step: 2,
      what: 'text',
      a: '[assistant] Side done: listed.',
      b: '[assistant] Side done: another listing.',
    });
  });
});
