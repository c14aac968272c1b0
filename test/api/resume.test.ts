import { describe, expect, it } from 'vitest';
import { isArborError } from '../../src/index.js';
import { collect, openArbor } from './helpers.js';
import { join } from 'node:path';
import { killAt } from '../helpers/arbor-process.js';
import { leafScript, planDir } from '../helpers/plan-run.js';
import { readRun, resumeDir, runIdOf, THREE_LEVELS, toolsOf } from '../helpers/resume-run.js';

describe('arbor.resume(runId)', () => {
  it('continues a run whose supervisor was killed, to the answer an uninterrupted run gives', async () => {
    const dir = await resumeDir();
    const crashed = await dir.run('Run the listing.', killAt('child-result:1'));
    expect(crashed.signal).toBe('SIGKILL');
    const runId = runIdOf(crashed);

    const { arbor } = await openArbor(THREE_LEVELS, {
      store: dir.db,
      cwd: dir.dir,
      grant: { fsRead: ['.'], exec: [] },
    });
    const handle = arbor.resume(runId);
    const events = await collect(handle.events);
    const result = await handle.result;
    expect(result.status).toBe('completed');
    expect(result.text).toBe('Root done: the tree of three answered.');
    expect(events.map((e) => e.type)).toContain('node.resumed');
    await arbor.close();
    expect(readRun(dir.db, runId).run?.status).toBe('completed');
  });

  it('narrows the recorded grant with `grant`, never widening it', async () => {
    const dir = await resumeDir();
    const crashed = await dir.run('Run the listing.', killAt('model-call:1'));
    expect(crashed.signal).toBe('SIGKILL');
    const runId = runIdOf(crashed);
    expect(toolsOf(dir.llm.requests[0])).toContain('fs_list');

    const { arbor, server } = await openArbor(THREE_LEVELS, { store: dir.db, cwd: dir.dir });
    // fs_read narrows to nothing; `all` on exec meets the recorded `all` and stays what it was.
    const handle = arbor.resume(runId, { grant: { fsRead: [], exec: 'all' } });
    expect((await handle.result).status).toBe('completed');
    await arbor.close();
    const root = readRun(dir.db, runId).nodes.find((node) => node.path === '0');
    expect(root?.payload.caveats.fs_read).toEqual([]);
    expect(root?.payload.caveats.exec).toBe('all');
    expect(server.requests.length).toBeGreaterThan(0);
    for (const request of server.requests) expect(toolsOf(request)).not.toContain('fs_list');
  });

  it('refuses a run that is not interrupted with a config error', async () => {
    const { arbor } = await openArbor({ scripts: [{ steps: [{ text: 'Done.' }] }] });
    const first = arbor.run('Say done.');
    const done = await first.result;
    const again = arbor.resume(done.runId);
    const error: unknown = await again.result.catch((e: unknown) => e);
    expect(isArborError(error, 'config')).toBe(true);
    expect((error as Error).message).toContain('already ended `completed`');
  });

  it('continues an interrupted plan run under its own id with `runPlan(runLog, { resume: true })`', async () => {
    const playbook = {
      scripts: [
        leafScript(
          'Task A',
          { text: 'A looks.', tool_calls: [{ name: 'fs.list', args: { path: '.' } }] },
          { text: 'A done' },
        ),
        leafScript('Task B', { text: 'B done' }),
      ],
    };
    const plan = await planDir(
      `[[subtask]]\nid = "a"\ninstruction = "Task A: first"\n\n[[subtask]]\nid = "b"\ninstruction = "Task B: second"\ndeps = ["a"]\n`,
      playbook,
    );
    const crashed = await plan.arbor(
      'run',
      'plan.toml',
      ['--fs-read', '.'],
      killAt('tool-result:1'),
    );
    expect(crashed.signal).toBe('SIGKILL');
    const runId = (await plan.readLog()).run;

    const { arbor, server } = await openArbor(playbook, {
      store: plan.db,
      cwd: plan.dir,
      grant: { fsRead: ['.'], exec: [] },
    });
    const handle = arbor.runPlan(join(plan.dir, 'plan.run.toml'), { resume: true });
    expect(handle.runId).toBe(runId);
    const result = await handle.result;
    await arbor.close();
    expect(result.status).toBe('completed');
    // a went on from its recorded tool result: its first step was not asked for again.
    const firstSteps = server.requests.filter(
      (r) => !JSON.stringify(r.body).includes('"role":"tool"'),
    );
    expect(firstSteps.map((r) => JSON.stringify(r.body).includes('Task A'))).toEqual([false]);
    expect(readRun(plan.db, runId ?? '').run?.status).toBe('completed');
  });
});
