import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withStore } from '../../src/store/index.js';
import { killAt } from '../helpers/arbor-process.js';
import { leafScript, planDir, runRecord, toolResultsOf } from '../helpers/plan-run.js';

const CHAIN = `[[subtask]]
id = "a"
instruction = "Task A: first"

[[subtask]]
id = "b"
instruction = "Task B: second"
deps = ["a"]

[[subtask]]
id = "c"
instruction = "Task C: third"
deps = ["b"]
`;

/** Each leaf of CHAIN answers at once. */
const CHAIN_DONE = {
  scripts: [
    leafScript('Task A', { text: 'A done' }),
    leafScript('Task B', { text: 'B done' }),
    leafScript('Task C', { text: 'C done' }),
  ],
};

const requestsFor = (llm: { requests: readonly { body: unknown }[] }, text: string) =>
  llm.requests.filter((r) => JSON.stringify(r.body).includes(text)).length;

describe('arbor plan resume', () => {
  it('continues a run killed mid-plan: done leaves are kept, the leaf caught running runs again', async () => {
    const plan = await planDir(CHAIN, CHAIN_DONE);
    const crashed = await plan.arbor('run', 'plan.toml', [], killAt('plan.running:b'));
    expect(crashed.signal).toBe('SIGKILL');
    const log = await plan.readLog();
    expect(log.subtask.map((s) => [s.id, s.status])).toEqual([
      ['a', 'done'],
      ['b', 'running'],
      ['c', 'pending'],
    ]);
    expect(requestsFor(plan.llm, 'Task A')).toBe(1);

    const resumed = await plan.arbor('resume', 'plan.run.toml');
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.report?.leaves.map((l) => [l.id, l.status, l.result])).toEqual([
      ['a', 'done', 'A done'],
      ['b', 'done', 'B done'],
      ['c', 'done', 'C done'],
    ]);
    // a ran once in all; b and c ran in the resumed run.
    expect(requestsFor(plan.llm, 'Task A')).toBe(1);
    expect(requestsFor(plan.llm, 'Task B')).toBe(1);
    const final = await plan.readLog();
    expect(final.subtask.every((s) => s.status === 'done')).toBe(true);
  });

  it('resumes with the endpoints and model the run recorded when no --intel or --model is given', async () => {
    const plan = await planDir(CHAIN, CHAIN_DONE);
    const crashed = await plan.arbor('run', 'plan.toml', [], killAt('plan.running:b'));
    expect(crashed.signal).toBe('SIGKILL');
    const runId = (await plan.readLog()).run ?? '';
    const meta = withStore(plan.db, (store) => store.getRun(runId)?.meta);
    expect(meta?.intelligence).toEqual({
      model: 'm',
      endpoints: [{ url: plan.llm.url, dialect: 'openai' }],
    });

    const before = plan.llm.requests.length;
    const resumed = await plan.resumeRecorded('plan.run.toml');
    expect(resumed.code, resumed.stderr).toBe(0);
    const after = plan.llm.requests.slice(before);
    expect(after.length).toBeGreaterThan(0);
    for (const request of after) expect((request.body as { model?: string }).model).toBe('m');
    expect((await plan.readLog()).subtask.every((s) => s.status === 'done')).toBe(true);
  });

  it('continues the interrupted run itself: a leaf caught mid-way goes on from its transcript', async () => {
    const plan = await planDir(CHAIN, {
      scripts: [
        leafScript('Task A', { text: 'A done' }),
        leafScript(
          'Task B',
          { text: 'B looks.', tool_calls: [{ name: 'fs.list', args: { path: '.' } }] },
          { text: 'B done' },
        ),
        leafScript('Task C', { text: 'C done' }),
      ],
    });
    // b's tool result is recorded: the supervisor dies in b's second step.
    const crashed = await plan.arbor(
      'run',
      'plan.toml',
      ['--fs-read', '.'],
      killAt('tool-result:1'),
    );
    expect(crashed.signal).toBe('SIGKILL');
    const runId = (await plan.readLog()).run;
    expect(runId).toBeDefined();
    const bFirstSteps = () =>
      plan.llm.requests.filter((r) => {
        const body = JSON.stringify(r.body);
        return body.includes('Task B') && !body.includes('"role":"tool"');
      }).length;
    expect(bFirstSteps()).toBe(1);

    const resumed = await plan.arbor('resume', 'plan.run.toml', [
      '--fs-read',
      '.',
      '--deadline',
      '10m',
    ]);
    expect(resumed.code, resumed.stderr).toBe(0);
    // The same run, continued: not a new one.
    expect(resumed.report?.run_id).toBe(runId);
    expect(resumed.report?.leaves.map((l) => [l.id, l.status, l.result])).toEqual([
      ['a', 'done', 'A done'],
      ['b', 'done', 'B done'],
      ['c', 'done', 'C done'],
    ]);
    expect(requestsFor(plan.llm, 'Task A')).toBe(1);
    // b's first step (and its tool call) is not run again.
    expect(bFirstSteps()).toBe(1);
    expect(toolResultsOf(plan.llm, 'Task B')).toHaveLength(1);
    const record = runRecord(plan.db, runId!);
    expect(record.events.filter((e) => e.kind === 'run.resumed')).toHaveLength(1);
    const b = record.nodes.find((n) => n.instruction.includes('Task B'));
    expect(record.events.filter((e) => e.kind === 'node.resumed').map((e) => e.nodeId)).toEqual([
      b?.id,
    ]);
    expect(record.nodes.map((n) => n.status)).toEqual([
      'completed',
      'completed',
      'completed',
      'completed',
    ]);
    // The plan node's record holds the deadline the resume gave it, for a later resume.
    expect(record.nodes[0]?.payload.limits.deadline_ms).toBe(600_000);
  });

  it('continuing an interrupted run, runs again a leaf that had failed before the crash', async () => {
    const plan = await planDir(
      `[[subtask]]
id = "b"
instruction = "Task B: flaky"
verify = "test -f fixed"
caveat_policy = { exec = ["test -f fixed"], fs_read = ["."] }

[[subtask]]
id = "c"
instruction = "Task C: independent"
`,
      {
        scripts: [
          leafScript('Task B', { text: 'B tried' }),
          leafScript('Task C', { text: 'C done' }),
        ],
      },
    );
    // b fails its verify; the supervisor dies as c starts.
    const crashed = await plan.arbor(
      'run',
      'plan.toml',
      ['--on-failure', 'continue'],
      killAt('plan.running:c'),
    );
    expect(crashed.signal).toBe('SIGKILL');
    const runId = (await plan.readLog()).run;
    expect((await plan.readLog()).subtask.map((s) => [s.id, s.status])).toEqual([
      ['b', 'failed'],
      ['c', 'running'],
    ]);
    writeFileSync(join(plan.dir, 'fixed'), '');

    const resumed = await plan.arbor('resume', 'plan.run.toml', ['--on-failure', 'continue']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.report?.run_id).toBe(runId);
    expect(resumed.report?.leaves.map((l) => [l.id, l.status])).toEqual([
      ['b', 'done'],
      ['c', 'done'],
    ]);
    // b's agent was asked again, not handed its record from before the crash.
    expect(requestsFor(plan.llm, 'Task B')).toBe(2);
  });

  it('retries failed and blocked leaves on resume, keeping the done ones', async () => {
    const plan = await planDir(
      `[[subtask]]
id = "a"
instruction = "Task A: ok"

[[subtask]]
id = "b"
instruction = "Task B: flaky"
verify = "test -f fixed"
caveat_policy = { exec = ["test -f fixed"], fs_read = ["."] }

[[subtask]]
id = "c"
instruction = "Task C: after b"
deps = ["b"]
`,
      {
        scripts: [
          leafScript('Task A', { text: 'A ok' }),
          leafScript('Task B', { text: 'B tried' }),
          leafScript('Task C', { text: 'C ok' }),
        ],
      },
    );
    const first = await plan.arbor('run', 'plan.toml');
    expect(first.code).toBe(3);
    expect(first.report?.leaves.map((l) => l.status)).toEqual(['done', 'failed', 'blocked']);
    writeFileSync(join(plan.dir, 'fixed'), '');
    const second = await plan.arbor('resume', 'plan.run.toml');
    expect(second.code).toBe(0);
    expect(requestsFor(plan.llm, 'Task A')).toBe(1);
    expect(requestsFor(plan.llm, 'Task B')).toBe(2);
  });
});

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
    cwd,
    encoding: 'utf8',
  });
}

/** A git repository on `main` with one commit: a README, and the test's store and run-log ignored. */
async function baseRepo(): Promise<string> {
  const repo = await mkdtemp(join(tmpdir(), 'arbor-plan-git-'));
  git(repo, 'init', '-q', '-b', 'main');
  writeFileSync(join(repo, 'README'), 'base\n');
  writeFileSync(join(repo, '.gitignore'), '.arbor-test.db*\nplan.run.toml\n');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'base');
  return repo;
}

describe('arbor plan run --worktrees', () => {
  it('runs each leaf on its own branch based on its deps, merges them and reports a conflict', async () => {
    const repo = await baseRepo();
    const plan = await planDir(
      `[[subtask]]
id = "a"
instruction = "Task A: write a"
caveat_policy = { fs_write = "all", max_calls = 3 }

[[subtask]]
id = "b"
instruction = "Task B: read a, write b"
deps = ["a"]
caveat_policy = { fs_read = "all", fs_write = "all", max_calls = 3 }

[[subtask]]
id = "c"
instruction = "Task C: write a differently"
caveat_policy = { fs_write = "all", max_calls = 3 }
`,
      {
        scripts: [
          leafScript(
            'Task A',
            { tool_calls: [{ name: 'fs.write', args: { path: 'a.txt', content: 'from a\n' } }] },
            { text: 'A wrote' },
          ),
          leafScript(
            'Task B',
            { tool_calls: [{ name: 'fs.read', args: { path: 'a.txt' } }] },
            { tool_calls: [{ name: 'fs.write', args: { path: 'b.txt', content: 'from b\n' } }] },
            { text: 'B wrote' },
          ),
          leafScript(
            'Task C',
            { tool_calls: [{ name: 'fs.write', args: { path: 'a.txt', content: 'from c\n' } }] },
            { text: 'C wrote' },
          ),
        ],
      },
      repo,
    );
    const { code, report, stderr } = await plan.arbor('run', 'plan.toml', ['--worktrees']);
    expect(code, stderr).toBe(3);
    expect(report?.leaves.map((l) => l.status)).toEqual(['done', 'done', 'done']);
    const runId = report!.run_id;
    for (const leaf of report!.leaves) {
      expect(leaf.artifact_ref?.branch).toBe(`arbor/${runId}/${leaf.id}`);
      expect(git(repo, 'rev-parse', leaf.artifact_ref!.branch!).trim()).toBe(
        leaf.artifact_ref?.commit,
      );
    }
    // b worked on top of a's commit: it read a's file.
    expect(toolResultsOf(plan.llm, 'Task B').join('\n')).toContain('from a');
    expect(git(repo, 'show', `${report!.leaves[1]!.artifact_ref!.commit}:a.txt`)).toBe('from a\n');
    // a and b merged; c conflicts with a on a.txt, reported and left out.
    expect(report?.merge?.merged).toEqual(['a', 'b']);
    expect(report?.merge?.conflicts).toEqual([
      expect.objectContaining({ leaf: 'c', files: ['a.txt'] }),
    ]);
    expect(stderr).toContain('merge conflict: leaf `c`');
    const merged = report!.merge!.branch;
    expect(git(repo, 'show', `${merged}:a.txt`)).toBe('from a\n');
    expect(git(repo, 'show', `${merged}:b.txt`)).toBe('from b\n');
    // The user's checkout is untouched and the worktrees are gone.
    expect(existsSync(join(repo, 'a.txt'))).toBe(false);
    expect(git(repo, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('main');
    expect(git(repo, 'worktree', 'list').trim().split('\n')).toHaveLength(1);
    expect(readFileSync(join(repo, 'README'), 'utf8')).toBe('base\n');
  });

  it('continues an interrupted --worktrees run as itself: leaves not done start over in fresh worktrees', async () => {
    const repo = await baseRepo();
    const plan = await planDir(
      `[[subtask]]
id = "a"
instruction = "Task A: write a"
caveat_policy = { fs_write = "all", max_calls = 3 }

[[subtask]]
id = "b"
instruction = "Task B: write b"
deps = ["a"]
caveat_policy = { fs_write = "all", max_calls = 3 }
`,
      {
        scripts: [
          leafScript(
            'Task A',
            { tool_calls: [{ name: 'fs.write', args: { path: 'a.txt', content: 'from a\n' } }] },
            { text: 'A wrote' },
          ),
          leafScript(
            'Task B',
            { tool_calls: [{ name: 'fs.write', args: { path: 'b.txt', content: 'from b\n' } }] },
            { text: 'B wrote' },
          ),
        ],
      },
      repo,
    );
    // b's write is done (its tool result recorded) when the supervisor dies.
    const crashed = await plan.arbor('run', 'plan.toml', ['--worktrees'], killAt('tool-result:2'));
    expect(crashed.signal).toBe('SIGKILL');
    const runId = (await plan.readLog()).run;

    const resumed = await plan.arbor('resume', 'plan.run.toml', ['--worktrees']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.report?.run_id).toBe(runId);
    expect(resumed.report?.leaves.map((l) => [l.id, l.status])).toEqual([
      ['a', 'done'],
      ['b', 'done'],
    ]);
    // a ran once; b started over (its edit was in a worktree that is gone).
    expect(requestsFor(plan.llm, 'Task A: write a')).toBe(2);
    expect(requestsFor(plan.llm, 'Task B: write b')).toBe(3);
    const merged = resumed.report!.merge!.branch;
    expect(merged).toBe(`arbor/${runId!}/merged`);
    expect(git(repo, 'show', `${merged}:a.txt`)).toBe('from a\n');
    expect(git(repo, 'show', `${merged}:b.txt`)).toBe('from b\n');
    const record = runRecord(plan.db, runId!);
    const bNodes = record.nodes.filter((n) => n.instruction.includes('Task B'));
    expect(bNodes.map((n) => n.status)).toEqual(['cancelled', 'completed']);
  });

  it('refuses --worktrees outside a git repository with exit 2', async () => {
    const plan = await planDir(CHAIN, { scripts: [{ steps: [{ text: 'never' }] }] });
    const { code, stderr } = await plan.arbor('run', 'plan.toml', ['--worktrees']);
    expect(code).toBe(2);
    expect(stderr).toContain('--worktrees needs a git repository');
    expect(plan.llm.requests).toHaveLength(0);
  });
});
