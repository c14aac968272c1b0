import { describe, expect, it } from 'vitest';
import { ArborProcess, killAt } from '../helpers/arbor-process.js';
import { ASKING_TREE, resumeDir, runIdOf } from '../helpers/resume-run.js';

const INSTRUCTION = 'Run the three-level listing, asking first.';
const WAIT = ['--ask-fallback', 'wait'];

describe('chaos: kill the supervisor while a deep node waits on a person (gate-open)', () => {
  it('resumes to the uninterrupted answer, the gate answered once, nothing finished re-run', async () => {
    // The uninterrupted run, its question answered as it waits.
    const clean = await resumeDir(ASKING_TREE);
    const live = new ArborProcess(
      [
        'run',
        '--intel',
        clean.llm.url,
        '--model',
        'm',
        '--events',
        'ndjson',
        '--fs-read',
        '.',
        ...WAIT,
        INSTRUCTION,
      ],
      { cwd: clean.dir, env: { ARBOR_DB: clean.db } },
    );
    const open = await live.waitForEvent('gate.open');
    expect((await clean.answer(String(open.run_id), 'g1', 'yes')).code).toBe(0);
    expect((await live.exited).code, live.stderr).toBe(0);
    expect(live.stdout).toContain('Root done');

    const dir = await resumeDir(ASKING_TREE);
    const crashed = await dir.run(INSTRUCTION, killAt('gate-open'), WAIT);
    expect(crashed.signal, crashed.stderr).toBe('SIGKILL');
    const runId = runIdOf(crashed);
    const before = dir.read(runId);
    expect(before.run?.status).toBe('interrupted');
    const leaf = before.nodes.find((n) => n.path === '0.1.1');
    expect(leaf?.status).toBe('interrupted');
    // The person answers while the run lies dead; the resume takes that answer.
    expect((await dir.answer(runId, 'g1', 'yes')).code).toBe(0);

    const resumed = await dir.resume(runId, WAIT);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toBe(live.stdout);
    const after = dir.read(runId);
    expect(after.run?.status).toBe('completed');
    expect(after.nodes.map((n) => [n.path, n.status])).toEqual([
      ['0', 'completed'],
      ['0.1', 'completed'],
      ['0.1.1', 'completed'],
    ]);
    const resumedNodes = after.events.filter((e) => e.kind === 'node.resumed').map((e) => e.nodeId);
    expect(resumedNodes).toContain(leaf?.id);
    const opened = after.events.filter((e) => e.kind === 'gate.open');
    expect(opened.map((e) => [e.data.gate, e.data.resumed ?? false])).toEqual([
      ['g1', false],
      ['g1', true],
    ]);
    const closed = after.events.filter((e) => e.kind === 'gate.closed');
    expect(closed.map((e) => [e.data.gate, e.data.answered, e.data.via])).toEqual([
      ['g1', true, 'cli'],
    ]);
  });
});
