import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FAST_ENV } from '../helpers/arbor-process.js';
import { leafScript, planDir } from '../helpers/plan-run.js';
import { runArbor } from '../helpers/run-arbor.js';

const NO_CALLS = `[[subtask]]
id = "writer"
instruction = "Task W: write the notes"
caveat_policy = { fs_write = ["notes"] }

[[subtask]]
id = "reader"
instruction = "Task R: read"
caveat_policy = { fs_read = "all", max_calls = 3 }
`;

describe('plan mistakes a newcomer makes', () => {
  it('warns, in validate and at the start of a run, of a leaf that grants an axis but no max_calls', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'arbor-plan-'));
    const file = path.join(dir, 'plan.toml');
    await writeFile(file, NO_CALLS);
    const validated = await runArbor(['plan', 'validate', file]);
    expect(validated.code).toBe(0);
    expect(validated.stdout).toBe('ok: 2 subtasks, 2 leaves\n');
    expect(validated.stderr).toBe(
      `${file}: warning: subtask \`writer\`: caveat_policy grants fs_write but no max_calls, so every tool call it makes will be refused (an omitted max_calls means none): set max_calls = "unlimited" or a number\n`,
    );
    const plan = await planDir(NO_CALLS, {
      scripts: [leafScript('Task W', { text: 'W done' }), leafScript('Task R', { text: 'R done' })],
    });
    const run = await plan.arbor('run', 'plan.toml');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('arbor: warning: subtask `writer`: caveat_policy grants fs_write');
    expect(run.stderr).not.toContain('subtask `reader`');
  });

  it("shows a leaf's refused tool calls in the run-log, the report and the summary", async () => {
    const plan = await planDir(NO_CALLS, {
      scripts: [
        leafScript(
          'Task W',
          {
            text: 'W writes.',
            tool_calls: [
              { name: 'fs.write', args: { path: 'notes/a.md', content: 'a' } },
              { name: 'fs.write', args: { path: 'notes/b.md', content: 'b' } },
            ],
          },
          { text: 'W done' },
        ),
        leafScript(
          'Task R',
          { text: 'R reads.', tool_calls: [{ name: 'fs.list', args: { path: '.' } }] },
          { text: 'R done' },
        ),
      ],
    });
    const run = await plan.arbor('run', 'plan.toml');
    expect(run.code, run.stderr).toBe(0);
    const leaves = run.report?.leaves.map((l) => [l.id, l.status, l.refused_calls]);
    expect(leaves).toEqual([
      ['writer', 'done', 2],
      ['reader', 'done', undefined],
    ]);
    const log = await plan.readLog();
    expect(log.subtask.map((s) => [s.id, s.refused_calls])).toEqual([
      ['writer', 2],
      ['reader', undefined],
    ]);
    expect(await readFile(path.join(plan.dir, 'plan.run.toml'), 'utf8')).toContain(
      'refused_calls = 2',
    );
    const text = await runArbor(
      ['plan', 'run', 'plan.toml', '--force', '--intel', plan.llm.url, '--model', 'm'],
      {
        cwd: plan.dir,
        env: { ...FAST_ENV, ARBOR_DB: plan.db },
      },
    );
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('=== writer (done, 2 tool calls refused) ===');
    expect(text.stdout).toContain('=== reader (done) ===');
  });

  it('refuses to overwrite the run-log of an earlier run without --force, naming plan resume', async () => {
    const plan = await planDir('[[subtask]]\nid = "a"\ninstruction = "Task A"\n', {
      scripts: [leafScript('Task A', { text: 'A done' })],
    });
    const first = await plan.arbor('run', 'plan.toml');
    expect(first.code, first.stderr).toBe(0);
    const logBefore = await plan.readLog();
    const again = await plan.arbor('run', 'plan.toml');
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('plan.run.toml exists: an earlier run of this plan.');
    expect(again.stderr).toContain('`arbor plan resume plan.run.toml` continues it');
    expect(again.stderr).toContain('--force');
    expect(await plan.readLog()).toEqual(logBefore);
    const forced = await plan.arbor('run', 'plan.toml', ['--force']);
    expect(forced.code, forced.stderr).toBe(0);
    expect((await plan.readLog()).run).not.toBe(logBefore.run);
  });
});
