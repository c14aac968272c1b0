import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FAST_ENV } from '../helpers/arbor-process.js';
import { leafScript, planDir, runRecord, type PlanReport } from '../helpers/plan-run.js';
import { readRun } from '../helpers/resume-run.js';
import { runArbor } from '../helpers/run-arbor.js';
import { replayGolden } from '../../src/testing/index.js';

/**
 * A plan whose first leaf writes a file and is verified by a command that passes only while
 * `flag` exists; a second leaf, after it, reads the file; a third runs beside them and lists.
 */
const PLAN = `goal = "notes"

[[subtask]]
id = "write"
instruction = "Task Write: write notes.txt"
verify = "test -f flag"
caveat_policy = { fs_read = ["."], fs_write = ["."], exec = ["test -f flag"], max_calls = "unlimited" }

[[subtask]]
id = "read"
instruction = "Task Read: read notes.txt"
deps = ["write"]
caveat_policy = { fs_read = ["."], max_calls = "unlimited" }

[[subtask]]
id = "side"
instruction = "Task Side: list the directory"
parallel_ok = true
caveat_policy = { fs_read = ["."], max_calls = "unlimited" }
`;

const PLAYBOOK = {
  scripts: [
    leafScript(
      'Task Write',
      { tool_calls: [{ name: 'fs.write', args: { path: 'notes.txt', content: 'notes' } }] },
      { text: 'wrote notes.txt' },
    ),
    leafScript(
      'Task Read',
      { tool_calls: [{ name: 'fs.read', args: { path: 'notes.txt' } }] },
      { text: 'read: notes' },
    ),
    leafScript(
      'Task Side',
      { tool_calls: [{ name: 'fs.list', args: { path: '.' } }] },
      { text: 'listed' },
    ),
  ],
};

const GRANT = ['--fs-read', '.', '--fs-write', '.'];

/** Records the plan once (its verify gate passing), then takes away what it made. */
async function recorded() {
  const plan = await planDir(PLAN, PLAYBOOK);
  await writeFile(join(plan.dir, 'flag'), '');
  const run = await plan.arbor('run', 'plan.toml', GRANT);
  expect(run.code, run.stderr).toBe(0);
  const report = run.report!;
  expect(report.leaves.map((l) => [l.id, l.status, l.result])).toEqual([
    ['write', 'done', 'wrote notes.txt'],
    ['read', 'done', 'read: notes'],
    ['side', 'done', 'listed'],
  ]);
  // What the leaf wrote, and what its gate needs, are gone: a replay must need neither.
  await rm(join(plan.dir, 'notes.txt'));
  await rm(join(plan.dir, 'flag'));
  const replay = (args: string[], db = plan.db, cwd = plan.dir) =>
    runArbor(['replay', ...args, '--json', '--events', 'none'], {
      cwd,
      env: { ...FAST_ENV, ARBOR_DB: db, OPENAI_API_KEY: '' },
    });
  return { plan, report, replay };
}

function leavesOf(stdout: string) {
  return (JSON.parse(stdout) as PlanReport).leaves.map((l) => [
    l.id,
    l.status,
    l.result,
    l.node_id,
  ]);
}

describe('arbor replay of a plan run', () => {
  it('runs the recorded plan again from its records: same leaves and results, no model call, no file touched, no verify command run', async () => {
    const { plan, report, replay } = await recorded();
    const calls = plan.llm.requests.length;
    const logBefore = readFileSync(join(plan.dir, 'plan.run.toml'), 'utf8');

    const run = await replay([report.run_id]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('no divergence');
    // The same leaves, ended the same way on the same (recorded) nodes; the gate's pass served.
    expect(leavesOf(run.stdout)).toEqual(
      report.leaves.map((l) => [l.id, l.status, l.result, l.node_id]),
    );
    expect(plan.llm.requests.length).toBe(calls);
    expect(existsSync(join(plan.dir, 'notes.txt'))).toBe(false);
    // The recorded run's run-log is untouched; the replay wrote its own in arbor's state directory.
    expect(readFileSync(join(plan.dir, 'plan.run.toml'), 'utf8')).toBe(logBefore);
    const replayId = (JSON.parse(run.stdout) as PlanReport).run_id;
    expect(existsSync(join(plan.dir, '.arbor', 'replays', `${replayId}.run.toml`))).toBe(true);
    const replayed = readRun(plan.db, replayId);
    expect(replayed.run?.meta).toMatchObject({
      replay_of: report.run_id,
      replay_tools: 'recorded',
    });
    expect(replayed.nodes.map((n) => n.path).sort()).toEqual(
      readRun(plan.db, report.run_id)
        .nodes.map((n) => n.path)
        .sort(),
    );
    const verified = runRecord(plan.db, replayId).events.filter((e) => e.kind === 'plan.verify');
    expect(verified.map((e) => e.data)).toEqual([{ leaf: 'write', passed: true }]);
  });

  it('replays an exported plan run in a fresh directory with a fresh store', async () => {
    const { plan, report, replay } = await recorded();
    const calls = plan.llm.requests.length;
    const exported = await runArbor(['runs', 'export', report.run_id], {
      cwd: plan.dir,
      env: { ...FAST_ENV, ARBOR_DB: plan.db },
    });
    expect(exported.code, exported.stderr).toBe(0);
    const elsewhere = await mkdtemp(join(tmpdir(), 'arbor-plan-replay-'));
    const file = join(elsewhere, 'run.json');
    await writeFile(file, exported.stdout);

    const run = await replay([file], join(elsewhere, 'fresh.db'), elsewhere);
    expect(run.code, run.stderr).toBe(0);
    expect(leavesOf(run.stdout).map(([id, status, result]) => [id, status, result])).toEqual(
      report.leaves.map((l) => [l.id, l.status, l.result]),
    );
    expect(plan.llm.requests.length).toBe(calls);

    // The same file as a golden run, through the library in this process.
    const golden = await replayGolden(file);
    expect(golden.divergences).toEqual([]);
    expect(golden.status).toBe('completed');
    expect(golden.paths()).toEqual(['0', '0.1', '0.2', '0.3']);
    const tools = ['0.1', '0.2', '0.3'].map((at) => golden.toolsOf(at).join());
    expect(tools.sort()).toEqual(['fs.list', 'fs.read', 'fs.write']);
    expect(golden.refused).toEqual([]);
    expect(plan.llm.requests.length).toBe(calls);
  });

  it('--tools live runs the leaves’ tools and the verify command again; a gate that now fails is a divergence that stops the plan', async () => {
    const { plan, report, replay } = await recorded();
    const calls = plan.llm.requests.length;

    const run = await replay([report.run_id, '--tools', 'live']);
    expect(run.code, run.stderr).toBe(1);
    // The leaf's write ran again; its gate ran again and failed without `flag`.
    expect(readFileSync(join(plan.dir, 'notes.txt'), 'utf8')).toBe('notes');
    expect(run.stderr).toMatch(/diverged at node 0\.\d, model call 3 \(verify\), stopped/);
    expect(run.stderr).toContain('- passed');
    expect(run.stderr).toContain('+ failed');
    const leaves = (JSON.parse(run.stdout) as PlanReport).leaves;
    expect(leaves[0]).toMatchObject({ id: 'write', status: 'failed' });
    // Nothing after the divergence ran: the dependent is blocked, and no model was called.
    expect(leaves[1]?.status).not.toBe('done');
    expect(plan.llm.requests.length).toBe(calls);
  });
});
