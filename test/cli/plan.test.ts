import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  INVALID_PLANS,
  UNPARSABLE_PLANS,
  VALID_PLANS,
  planFixturePath,
} from '../helpers/plan-fixtures.js';
import { runArbor } from '../helpers/run-arbor.js';

describe('arbor plan validate', () => {
  it.each(VALID_PLANS)('says ok for $file and exits 0', async ({ file, subtasks, leaves }) => {
    const run = await runArbor(['plan', 'validate', planFixturePath(file)]);
    expect(run.stdout).toBe(`ok: ${subtasks} subtasks, ${leaves} leaves\n`);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
  });

  it.each(INVALID_PLANS)(
    'prints every finding of $file to stderr and exits 2',
    async ({ file, findings }) => {
      const fixture = planFixturePath(file);
      const run = await runArbor(['plan', 'validate', fixture]);
      expect(run.stderr).toBe(
        findings.map((f) => `${fixture}: ${f.message} [${f.code}]\n`).join(''),
      );
      expect(run.stdout).toBe('');
      expect(run.code).toBe(2);
    },
  );

  it.each(UNPARSABLE_PLANS)(
    'prints every parse problem of $file and exits 2',
    async ({ file, problems }) => {
      const fixture = planFixturePath(file);
      const run = await runArbor(['plan', 'validate', fixture]);
      expect(run.stderr).toBe(problems.map((problem) => `${fixture}: ${problem}\n`).join(''));
      expect(run.code).toBe(2);
    },
  );

  it('reports a TOML syntax error with line, column and the offending line', async () => {
    const fixture = planFixturePath('invalid/syntax-error.toml');
    const run = await runArbor(['plan', 'validate', fixture]);
    expect(run.stderr).toMatch(
      new RegExp(`^${fixture}:3:18: invalid TOML: .*\\n(.*\\n)*3: +instruction = "A\\.\\n`),
    );
    expect(run.code).toBe(2);
  });

  it('takes a fragment with outside pointers only with --fragment', async () => {
    const fixture = planFixturePath('valid/fragment.toml');
    const strict = await runArbor(['plan', 'validate', fixture]);
    expect(strict.code).toBe(2);
    expect(strict.stderr).toContain('[unknown_dep]');
    const fragment = await runArbor(['plan', 'validate', '--fragment', fixture]);
    expect(fragment.stdout).toBe('ok: 1 subtask, 1 leaf\n');
    expect(fragment.code).toBe(0);
  });

  it.each([
    [
      ['plan', 'validate', '/nonexistent/plan.toml'],
      'arbor: Cannot read plan file `/nonexistent/plan.toml`: no such file.\n',
    ],
    [['plan', 'validate'], 'arbor: plan validate: expected a plan file.\n'],
    [
      ['plan', 'validate', 'a.toml', 'b.toml'],
      'arbor: plan validate: expected one plan file, got 2.\n',
    ],
    [
      ['plan', 'validate', '--bogus', 'a.toml'],
      "arbor: plan validate: Unknown option '--bogus'.\n",
    ],
    [
      ['plan', 'frobnicate'],
      'arbor: Unknown subcommand `plan frobnicate`; expected one of `plan validate`, `plan run`, `plan resume`, `plan show`.\n',
    ],
  ])('arbor %j exits 2 with a clear message', async (args, message) => {
    const run = await runArbor(args);
    expect(run.stderr).toBe(message);
    expect(run.code).toBe(2);
  });
});

describe('arbor plan show', () => {
  it('draws the tree and the dependencies on stdout', async () => {
    const run = await runArbor(['plan', 'show', planFixturePath('valid/tree.toml')]);
    expect(run.stdout).toContain(
      [
        'tree',
        '○ epic [plan] pending: Duration work',
        '├── ○ fix-phase [phase] pending: Fix the formatter',
        '│   ├── ✓ fix [task] done: Fix `humanize_duration` so 90s renders as 1m 30s',
        '│   └── … fix-tests [task] running: Add edge-case tests for the formatter',
        '└── ○ docs [task] pending: Document the new format in README',
        '',
        'dependencies',
        '✓ fix        no deps',
        '… fix-tests  after ✓ fix',
        '○ docs       after ✓ fix, … fix-tests',
      ].join('\n'),
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
  });

  it('shows a run-log with its statuses', async () => {
    const run = await runArbor(['plan', 'show', planFixturePath('valid/run-log.run.toml')]);
    expect(run.stdout).toContain('⊘ implement     after ✗ schema, – docs-outline');
    expect(run.code).toBe(0);
  });

  it('draws a plan with problems and points to validate on stderr', async () => {
    const fixture = planFixturePath('invalid/dep-cycle.toml');
    const run = await runArbor(['plan', 'show', fixture]);
    expect(run.stdout).toContain('○ a  after ○ b\n○ b  after ○ c\n○ c  after ○ a\n');
    expect(run.stderr).toBe(
      `${fixture}: 1 problem; run \`arbor plan validate ${fixture}\` for details\n`,
    );
    expect(run.code).toBe(0);
  });

  it('suggests --fragment when the only problems are pointers outside the file', async () => {
    const fixture = planFixturePath('valid/fragment.toml');
    const run = await runArbor(['plan', 'show', fixture]);
    expect(run.stderr).toBe(
      `${fixture}: 2 problems; run \`arbor plan validate [--fragment] ${fixture}\` for details\n`,
    );
    expect(run.code).toBe(0);
  });

  it('exits 2 on a file that is not a plan', async () => {
    const fixture = planFixturePath('invalid/unknown-key.toml');
    const run = await runArbor(['plan', 'show', fixture]);
    expect(run.stderr).toContain('unknown key `dependz`');
    expect(run.stdout).toBe('');
    expect(run.code).toBe(2);
  });
});

describe('arbor plan help', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'arbor-plan-cli-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('lists the plan subcommands at the top level and under `plan`', async () => {
    const top = await runArbor(['--help']);
    expect(top.stdout).toContain('plan validate');
    expect(top.stdout).toContain('plan show');
    const plan = await runArbor(['plan', '--help']);
    expect(plan.stdout).toMatch(/validate +check a plan file/);
    expect(plan.code).toBe(0);
    const bare = await runArbor(['plan']);
    expect(bare.code).toBe(2);
    const validate = await runArbor(['plan', 'validate', '--help']);
    expect(validate.stdout).toContain('--fragment');
    expect(validate.code).toBe(0);
  });

  it('validates a file given relative to the working directory', async () => {
    await writeFile(path.join(dir, 'p.toml'), '[[subtask]]\nid = "a"\ninstruction = "A."\n');
    const run = await runArbor(['plan', 'validate', 'p.toml'], { cwd: dir });
    expect(run.stdout).toBe('ok: 1 subtask, 1 leaf\n');
  });
});
