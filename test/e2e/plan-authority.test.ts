import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { leafScript, planDir, runRecord, toolResultsOf } from '../helpers/plan-run.js';
import { describeWithSandbox } from '../helpers/sandbox.js';

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
    cwd,
    encoding: 'utf8',
  });
}

const NARROW = `[[subtask]]
id = "w"
instruction = "Task W: write outside your lane"
verify = "test -f outside.txt"
caveat_policy = { fs_read = ["."], fs_write = ["allowed/"], exec = ["test -f outside.txt"], max_calls = 3 }
`;

describeWithSandbox('plan resume takes authority from the authored plan', () => {
  it('ignores a run-log edited to widen a leaf', async () => {
    const plan = await planDir(NARROW, {
      scripts: [
        leafScript(
          'Task W',
          { tool_calls: [{ name: 'fs.write', args: { path: 'outside.txt', content: 'x' } }] },
          { text: 'tried' },
        ),
      ],
    });
    const first = await plan.arbor('run', 'plan.toml');
    expect(first.code, first.stderr).toBe(3);
    expect(first.report?.leaves[0]?.status).toBe('failed');
    // The attack: give the leaf everything in the run-log, then resume from it.
    const logPath = join(plan.dir, 'plan.run.toml');
    const widened = readFileSync(logPath, 'utf8')
      .replace(/fs_write = \[[^\]]*\]/, 'fs_write = "all"')
      .replace(/status = "failed"/, 'status = "pending"');
    expect(widened).toContain('fs_write = "all"');
    writeFileSync(logPath, widened);
    // The edit is caught: the run-log is not what its run last recorded.
    const refused = await plan.arbor('resume', 'plan.run.toml');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/plan\.run\.toml was changed since run run_\w+ last wrote it/);
    expect(refused.stderr).toContain('--trust-run-log');
    // Trusted anyway, it still widens nothing: authority comes from the authored plan.
    const resumed = await plan.arbor('resume', 'plan.run.toml', ['--trust-run-log']);
    expect(resumed.code, resumed.stderr).toBe(3);
    expect(existsSync(join(plan.dir, 'outside.txt'))).toBe(false);
    expect(toolResultsOf(plan.llm, 'Task W').at(-1)).toMatch(
      /refused: .*outside\.txt is outside fs_write/,
    );
    const { nodes } = runRecord(plan.db, resumed.report!.run_id);
    const leaf = nodes.find((n) => n.instruction.includes('Task W'));
    expect(leaf?.payload.caveats.fs_write).toEqual([join(plan.dir, 'allowed')]);
  });
});

describe('plan resume needs the authored plan', () => {
  it('says so, naming --plan, when the run-log has no plan beside it', async () => {
    const plan = await planDir(NARROW, { scripts: [leafScript('Task W', { text: 'ok' })] });
    await plan.arbor('run', 'plan.toml', ['--sandbox', 'off']);
    const elsewhere = await mkdtemp(join(tmpdir(), 'arbor-lone-log-'));
    copyFileSync(join(plan.dir, 'plan.run.toml'), join(elsewhere, 'plan.run.toml'));
    const lone = await plan.arbor('resume', join(elsewhere, 'plan.run.toml'));
    expect(lone.code).toBe(2);
    expect(lone.stderr).toContain(
      "resume takes every leaf's instruction and authority from the authored plan",
    );
    expect(lone.stderr).toContain('--plan FILE');
    const named = await plan.arbor('resume', join(elsewhere, 'plan.run.toml'), [
      '--plan',
      join(plan.dir, 'plan.toml'),
      '--sandbox',
      'off',
      '--trust-run-log',
    ]);
    expect(named.stderr).not.toContain('resume takes every leaf');
  });
});

describe("arbor's own git calls", () => {
  it('never run hooks or an fsmonitor planted in the repository', async () => {
    const repo = await mkdtemp(join(tmpdir(), 'arbor-hooks-'));
    const marker = join(mkdtempSync(join(tmpdir(), 'arbor-marker-')), 'ran');
    git(repo, 'init', '-q', '-b', 'main');
    writeFileSync(join(repo, '.gitignore'), '.arbor-test.db*\nplan.run.toml\n.arbor/\n');
    writeFileSync(join(repo, 'README'), 'base\n');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'base');
    for (const hook of [
      'post-checkout',
      'pre-commit',
      'commit-msg',
      'post-commit',
      'post-merge',
      'prepare-commit-msg',
      'reference-transaction',
    ]) {
      writeFileSync(join(repo, '.git', 'hooks', hook), `#!/bin/sh\necho ${hook} >> ${marker}\n`);
      chmodSync(join(repo, '.git', 'hooks', hook), 0o755);
    }
    writeFileSync(join(repo, 'monitor.sh'), `#!/bin/sh\necho fsmonitor >> ${marker}\n`);
    chmodSync(join(repo, 'monitor.sh'), 0o755);
    git(repo, 'config', 'core.fsmonitor', join(repo, 'monitor.sh'));
    const plan = await planDir(
      `[[subtask]]
id = "a"
instruction = "Task A: write a"
caveat_policy = { fs_write = "all", max_calls = 3 }
`,
      {
        scripts: [
          leafScript(
            'Task A',
            {
              tool_calls: [
                { name: 'fs.write', args: { path: 'a.txt', content: 'from a\n' } },
                { name: 'fs.write', args: { path: '.git', content: 'gitdir: /tmp/elsewhere\n' } },
              ],
            },
            { text: 'never reached' },
            { text: 'A wrote' },
          ),
        ],
      },
      repo,
    );
    const run = await plan.arbor('run', 'plan.toml', ['--worktrees']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.report?.merge?.merged).toEqual(['a']);
    expect(toolResultsOf(plan.llm, 'Task A')[1]).toMatch(
      /^Error: `fs.write` refused: .*\/\.git is part of this run's own state/,
    );
    expect(existsSync(marker), existsSync(marker) ? readFileSync(marker, 'utf8') : '').toBe(false);
    // The hooks are live: git run the ordinary way fires them.
    git(repo, 'commit', '-q', '--allow-empty', '-m', 'by hand');
    expect(readFileSync(marker, 'utf8')).toContain('post-commit');
  });
});
