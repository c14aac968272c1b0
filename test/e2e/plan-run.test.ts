import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { eventSeq, leafScript, planDir, runRecord, toolResultsOf } from '../helpers/plan-run.js';
import { FAST_ENV } from '../helpers/arbor-process.js';
import { runArbor } from '../helpers/run-arbor.js';

const DIAMOND = `goal = "diamond"

[[subtask]]
id = "a"
instruction = "Task A: start"

[[subtask]]
id = "b"
instruction = "Task B: left"
deps = ["a"]
parallel_ok = true

[[subtask]]
id = "c"
instruction = "Task C: right"
deps = ["a"]
parallel_ok = true

[[subtask]]
id = "d"
instruction = "Task D: join"
deps = ["b", "c"]
`;

const DIAMOND_PLAYBOOK = {
  scripts: [
    leafScript('Task A', { text: 'A started' }),
    leafScript('Task B', { text: 'B left', delay_ms: 300 }),
    leafScript('Task C', { text: 'C right', delay_ms: 300 }),
    leafScript('Task D', { text: 'D joined' }),
  ],
};

describe('arbor plan run', () => {
  it('runs a diamond with its parallel leaves at once, each after its deps, and exits 0', async () => {
    const plan = await planDir(DIAMOND, DIAMOND_PLAYBOOK);
    const { code, report, stderr } = await plan.arbor('run', 'plan.toml');
    expect(code, stderr).toBe(0);
    expect(report?.leaves.map((l) => [l.id, l.status, l.result])).toEqual([
      ['a', 'done', 'A started'],
      ['b', 'done', 'B left'],
      ['c', 'done', 'C right'],
      ['d', 'done', 'D joined'],
    ]);
    // Each leaf reports its node and its cost; the plan's usage is their sum.
    const leafUsage = report!.leaves.map((l) => l.usage?.input_tokens ?? 0);
    expect(leafUsage.every((tokens) => tokens > 0)).toBe(true);
    expect(report!.usage.input_tokens).toBe(leafUsage.reduce((a, b) => a + b, 0));
    expect(new Set(report!.leaves.map((l) => l.node_id)).size).toBe(4);
    const record = runRecord(plan.db, report!.run_id);
    // b and c overlap: c starts before b ends; d starts only after both ended.
    expect(eventSeq(record, 'Task C', 'node.spawned')).toBeLessThan(
      eventSeq(record, 'Task B', 'node.end'),
    );
    expect(eventSeq(record, 'Task A', 'node.end')).toBeLessThan(
      eventSeq(record, 'Task B', 'node.spawned'),
    );
    for (const before of ['Task B', 'Task C'])
      expect(eventSeq(record, before, 'node.end')).toBeLessThan(
        eventSeq(record, 'Task D', 'node.spawned'),
      );
    // Every leaf is a child of the plan's node, spawned through the chokepoint in plan mode.
    const leafNodes = record.nodes.filter((n) => n.depth === 1);
    expect(leafNodes).toHaveLength(4);
    expect(
      record.events.filter((e) => e.kind === 'node.spawned' && e.data.mode === 'plan'),
    ).toHaveLength(4);
    // d sees its deps' results as context.
    const dRequest = plan.llm.requests.find((r) => JSON.stringify(r.body).includes('Task D'));
    expect(JSON.stringify(dRequest?.body)).toContain('Result of `b`');
    // The authored file is untouched; the run-log holds every status and result.
    expect(readFileSync(join(plan.dir, 'plan.toml'), 'utf8')).toBe(DIAMOND);
    const log = await plan.readLog();
    expect(log.subtask.map((s) => s.status)).toEqual(['done', 'done', 'done', 'done']);
  });

  it('prints the final leaf’s whole result and one line of each other leaf without --json', async () => {
    const joined = 'D joined:\n- from b, the left side\n- from c, the right side';
    const plan = await planDir(DIAMOND, {
      scripts: [
        leafScript('Task A', { text: 'A started\nA second line' }),
        leafScript('Task B', { text: 'B left' }),
        leafScript('Task C', { text: 'C right' }),
        leafScript('Task D', { text: joined }),
      ],
    });
    const run = await runArbor(
      ['plan', 'run', 'plan.toml', '--intel', plan.llm.url, '--model', 'm'],
      {
        cwd: plan.dir,
        env: { ...FAST_ENV, ARBOR_DB: plan.db },
      },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(
      [
        'done      a  A started',
        'done      b  B left',
        'done      c  C right',
        '',
        '=== d (done) ===',
        joined,
        '',
        'plan: 4 done; run-log plan.run.toml',
        '',
      ].join('\n'),
    );
  });

  it('runs leaves one at a time with --concurrency 1', async () => {
    const plan = await planDir(DIAMOND, DIAMOND_PLAYBOOK);
    const { code, report } = await plan.arbor('run', 'plan.toml', ['--concurrency', '1']);
    expect(code).toBe(0);
    const record = runRecord(plan.db, report!.run_id);
    expect(eventSeq(record, 'Task B', 'node.end')).toBeLessThan(
      eventSeq(record, 'Task C', 'node.spawned'),
    );
  });

  const VERIFY = `[[subtask]]
id = "build"
instruction = "Task Build"
verify = "echo compiling; echo 'error: type mismatch' >&2; exit 3"
caveat_policy = { exec = ["echo compiling; echo 'error: type mismatch' >&2; exit 3"] }

[[subtask]]
id = "test"
instruction = "Task Test"
deps = ["build"]

[[subtask]]
id = "docs"
instruction = "Task Docs"
`;
  const VERIFY_PLAYBOOK = {
    scripts: [
      leafScript('Task Build', { text: 'built' }),
      leafScript('Task Test', { text: 'tested' }),
      leafScript('Task Docs', { text: 'documented' }),
    ],
  };

  it('fails a leaf whose verify command fails, with its output tail; stop starts nothing more', async () => {
    const plan = await planDir(VERIFY, VERIFY_PLAYBOOK);
    const { code, report } = await plan.arbor('run', 'plan.toml');
    expect(code).toBe(3);
    const [build, test, docs] = report!.leaves;
    expect(build?.status).toBe('failed');
    expect(build?.result).toContain('exited 3');
    expect(build?.result).toContain('error: type mismatch');
    expect(build?.result).toContain('compiling');
    expect(test).toMatchObject({ status: 'blocked' });
    expect(docs).toMatchObject({ status: 'cancelled' });
    expect(plan.llm.requests.some((r) => JSON.stringify(r.body).includes('Task Docs'))).toBe(false);
    const log = await plan.readLog();
    expect(log.subtask.map((s) => s.status)).toEqual(['failed', 'blocked', 'cancelled']);
  });

  it('under --on-failure continue, runs the independent leaf and blocks the dependent', async () => {
    const plan = await planDir(VERIFY, VERIFY_PLAYBOOK);
    const { code, report } = await plan.arbor('run', 'plan.toml', ['--on-failure', 'continue']);
    expect(code).toBe(3);
    expect(report!.leaves.map((l) => l.status)).toEqual(['failed', 'blocked', 'done']);
  });

  it('refuses a verify command and an exec call that the leaf policy does not permit', async () => {
    const plan = await planDir(
      `[[subtask]]
id = "a"
instruction = "Task Exec"
verify = "touch verified"
caveat_policy = { exec = ["echo allowed"], max_calls = 5 }
`,
      {
        scripts: [
          leafScript(
            'Task Exec',
            { tool_calls: [{ name: 'exec', args: { command: 'touch pwned' } }] },
            { text: 'tried' },
          ),
        ],
      },
    );
    const { code, report } = await plan.arbor('run', 'plan.toml');
    expect(code).toBe(3);
    expect(report!.leaves[0]?.result).toContain('verify refused: `touch verified`');
    expect(toolResultsOf(plan.llm, 'Task Exec').join('\n')).toContain(
      '`exec` refused: `touch pwned` is not an allowed command',
    );
    expect(existsSync(join(plan.dir, 'pwned'))).toBe(false);
    expect(existsSync(join(plan.dir, 'verified'))).toBe(false);
  });

  it('refuses a write outside the leaf write lane and allows one inside it', async () => {
    const plan = await planDir(
      `[[subtask]]
id = "a"
instruction = "Task Lane"
context = ["./out/"]
caveat_policy = { fs_write = "all", max_calls = 5 }
`,
      {
        scripts: [
          leafScript(
            'Task Lane',
            { tool_calls: [{ name: 'fs.write', args: { path: 'outside.txt', content: 'no' } }] },
            {
              tool_calls: [{ name: 'fs.write', args: { path: 'out/inside.txt', content: 'yes' } }],
            },
            { text: 'wrote' },
          ),
        ],
      },
    );
    const { code, stderr } = await plan.arbor('run', 'plan.toml');
    expect(code, stderr).toBe(0);
    const results = toolResultsOf(plan.llm, 'Task Lane');
    expect(results[0]).toMatch(/refused|not allowed|outside/i);
    expect(existsSync(join(plan.dir, 'outside.txt'))).toBe(false);
    expect(readFileSync(join(plan.dir, 'out/inside.txt'), 'utf8')).toBe('yes');
  });

  it('applies policy rules for caller kind plan to every leaf, recorded with the rule index', async () => {
    const plan = await planDir(
      `[[subtask]]
id = "a"
instruction = "Task Policy"
caveat_policy = { fs_write = "all", max_calls = 5 }
`,
      {
        scripts: [
          leafScript(
            'Task Policy',
            { tool_calls: [{ name: 'fs.write', args: { path: 'x.txt', content: 'x' } }] },
            { text: 'tried' },
          ),
        ],
      },
    );
    await writeFile(
      join(plan.dir, 'arbor.toml'),
      `[[security.policy]]
action = "deny"
reason = "plan leaves do not write"
[security.policy.match]
tool = "fs.write"
caller = ["plan"]
`,
    );
    const { code, report } = await plan.arbor('run', 'plan.toml', ['--config', 'arbor.toml']);
    expect(code).toBe(0);
    expect(toolResultsOf(plan.llm, 'Task Policy').join('\n')).toContain('plan leaves do not write');
    expect(existsSync(join(plan.dir, 'x.txt'))).toBe(false);
    const decision = runRecord(plan.db, report!.run_id).events.find(
      (e) => e.kind === 'policy.decision',
    );
    expect(decision?.data).toMatchObject({ action: 'deny', rule: 0 });
  });

  it('exits 2 on an invalid plan and on bad flags, before any model call', async () => {
    const cyclic = await planDir(
      `[[subtask]]
id = "a"
instruction = "A"
deps = ["b"]

[[subtask]]
id = "b"
instruction = "B"
deps = ["a"]
`,
      { scripts: [{ steps: [{ text: 'never' }] }] },
    );
    const invalid = await cyclic.arbor('run', 'plan.toml');
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toContain('cycle');
    for (const args of [
      ['--concurrency', '0'],
      ['--on-failure', 'retry'],
      ['--verify-timeout', 'soon'],
      ['--provider', 'fork'],
    ]) {
      const bad = await cyclic.arbor('run', 'plan.toml', args);
      expect(bad.code, args.join(' ')).toBe(2);
      expect(bad.stderr).toContain(args[0]);
    }
    expect(cyclic.llm.requests).toHaveLength(0);
    expect(existsSync(join(cyclic.dir, 'plan.run.toml'))).toBe(false);
  });
});

describe('the example plan in the README', () => {
  it('runs every leaf against the scripted model and exits 0', async () => {
    const root = fileURLToPath(new URL('../../', import.meta.url));
    const dir = await mkdtemp(join(tmpdir(), 'arbor-example-plan-'));
    copyFileSync(join(root, 'examples/plans/release-notes.toml'), join(dir, 'plan.toml'));
    const run = await runArbor(
      [
        'plan',
        'run',
        'plan.toml',
        '--mock-llm',
        join(root, 'examples/playbooks/release-notes.json'),
      ],
      { cwd: dir, env: { ARBOR_DB: join(dir, 'arbor.db') } },
    );
    expect(run.code, run.stderr).toBe(0);
    // `notes` is the leaf nothing depends on: its result is printed whole under its own heading.
    expect(run.stdout).toMatch(/^done +collect +Changes: /m);
    expect(run.stdout).toContain(
      '=== notes (done) ===\nRelease notes drafted from the features and fixes (scripted model).\n',
    );
    expect(run.stdout).toContain('plan: 4 done');
  });
});
