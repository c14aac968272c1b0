import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PlaybookInput } from '../../src/testing/fake-llm/index.js';
import { RunDiffSchema } from '../../src/replay/index.js';
import { FAST_ENV } from '../helpers/arbor-process.js';
import { fakeLlm } from '../helpers/fake-llm.js';
import { resumeDir, runIdOf } from '../helpers/resume-run.js';
import { runArbor } from '../helpers/run-arbor.js';

/**
 * A root that delegates to one leaf; the leaf reads `a.txt`, then `leafPath`, then answers
 * `leafAnswer`. (Files, not listings: the store's own files grow between two runs.)
 */
function playbook(leafPath: string, leafAnswer: string): PlaybookInput {
  return {
    scripts: [
      {
        match: { contains: 'Leaf:' },
        steps: [
          { text: 'Leaf looks.', tool_calls: [{ name: 'fs.read', args: { path: 'a.txt' } }] },
          {
            text: 'Leaf looks again.',
            tool_calls: [{ name: 'fs.read', args: { path: leafPath } }],
          },
          { text: leafAnswer },
        ],
      },
      {
        steps: [
          {
            text: 'Root delegates.',
            tool_calls: [{ name: 'subagent.run', args: { instruction: 'Leaf: list twice.' } }],
          },
          { text: 'Root done.' },
        ],
      },
    ],
  };
}

describe('arbor runs diff, against a real store', () => {
  it('names the first divergence of two runs with different playbooks at the leaf’s step 2', async () => {
    const dir = await resumeDir(playbook('b.txt', 'Leaf done.'));
    for (const name of ['a.txt', 'b.txt', 'c.txt']) await writeFile(join(dir.dir, name), name);
    const first = await dir.run('List twice.');
    expect(first.code, first.stderr).toBe(0);
    const other = await fakeLlm(playbook('c.txt', 'Leaf done, one level up.'));
    const second = await runArbor(
      [
        'run',
        '--intel',
        other.url,
        '--model',
        'm',
        '--events',
        'ndjson',
        '--fs-read',
        '.',
        'List twice.',
      ],
      { cwd: dir.dir, env: { ...FAST_ENV, ARBOR_DB: dir.db } },
    );
    expect(second.code, second.stderr).toBe(0);
    const [a, b] = [runIdOf(first), runIdOf(second)];

    const same = await runArbor(['runs', 'diff', a, a, '--db', dir.db, '--json']);
    expect(RunDiffSchema.parse(JSON.parse(same.stdout)).first_divergence).toBeNull();

    const json = await runArbor(['runs', 'diff', a, b, '--db', dir.db, '--json']);
    expect(json.code, json.stderr).toBe(0);
    const diff = RunDiffSchema.parse(JSON.parse(json.stdout));
    expect(diff.first_divergence).toEqual({
      path: '0.1',
      step: 2,
      what: 'tool_calls',
      a: 'fs.read {"path":"b.txt"}',
      b: 'fs.read {"path":"c.txt"}',
    });
    expect(diff.nodes.map((n) => [n.path, n.a?.tools, n.b?.steps])).toEqual([
      ['0', ['subagent.run'], 2],
      ['0.1', ['fs.read', 'fs.read'], 3],
    ]);
    expect(diff.runs.a).toMatchObject({ run_id: a, status: 'completed', result: 'Root done.' });

    const text = await runArbor(['runs', 'diff', a, b, '--db', dir.db]);
    expect(text.stdout).toContain(
      'first divergence: node 0.1, step 2 (tool_calls)\n  - fs.read {"path":"b.txt"}\n  + fs.read {"path":"c.txt"}\n',
    );
    expect(text.stdout).toMatch(/^0\.1 +completed +3 +fs\.read,fs\.read +\d+\+\d+ tok/m);
  });

  it('names an unknown run id, and says which argument is missing', async () => {
    const dir = await resumeDir(playbook('b.txt', 'Leaf done.'));
    const runId = runIdOf(await dir.run('List twice.'));
    const unknown = await runArbor(['runs', 'diff', runId, 'run_nope', '--db', dir.db]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('No run `run_nope` in this store');
    const missing = await runArbor(['runs', 'diff', runId, '--db', dir.db]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('RUN_B is missing');
    const help = await runArbor(['runs', '--help']);
    expect(help.stdout).toContain('diff RUN_A RUN_B');
  });
});
