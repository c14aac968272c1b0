import { describe, expect, it } from 'vitest';
import { ArborProcess, isAlive } from '../helpers/arbor-process.js';
import { ASKING_TREE, resumeDir } from '../helpers/resume-run.js';

const INSTRUCTION = 'Run the three-level listing, asking first.';

/** The asking tree under `arbor run`, parking after 200 ms, its questions waiting for an answer. */
function parkingRun(dir: Awaited<ReturnType<typeof resumeDir>>): ArborProcess {
  return new ArborProcess(
    [
      'run',
      '--intel',
      dir.llm.url,
      '--model',
      'm',
      '--events',
      'ndjson',
      '--fs-read',
      '.',
      '--ask-fallback',
      'wait',
      INSTRUCTION,
    ],
    { cwd: dir.dir, env: { ARBOR_DB: dir.db, ARBOR_PARK_AFTER_MS: '200' } },
  );
}

/** The NDJSON event lines of a finished run's stderr. */
function eventLines(stderr: string): Record<string, unknown>[] {
  return stderr
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('parked nodes: a tree waiting on a person three levels down holds no process', () => {
  it('parks the asking leaf and its ancestors, and wakes them where the answer arrives', async () => {
    const dir = await resumeDir(ASKING_TREE);
    const live = parkingRun(dir);
    await live.waitUntil(
      () => live.events.filter((e) => e.event === 'node.parked').length === 3,
      'three nodes parked',
    );
    const pids = live.events.flatMap((e) => (e.event === 'child.ready' ? [Number(e.pid)] : []));
    expect(pids).toHaveLength(3);
    await expect.poll(() => pids.filter(isAlive), { timeout: 10_000 }).toEqual([]);
    const requests = dir.llm.requests.length;
    const open = await live.waitForEvent('gate.open');
    expect((await dir.answer(String(open.run_id), 'g1', 'yes')).code).toBe(0);
    expect((await live.exited).code, live.stderr).toBe(0);
    expect(live.stdout).toContain('Root done');
    // Each node woke once and made only the model calls it had left: one each.
    expect(live.events.filter((e) => e.event === 'node.woken')).toHaveLength(3);
    expect(dir.llm.requests.length - requests).toBe(3);
    // Nothing was served twice: one question, three nodes, each listing once; the woken nodes'
    // repeated steps were answered from what arrived.
    const count = (event: string, name?: string) =>
      live.events.filter((e) => e.event === event && (name === undefined || e.name === name))
        .length;
    expect(count('gate.open')).toBe(1);
    expect(count('node.spawned')).toBe(3);
    expect(count('tool.result', 'fs.list')).toBe(2);
  });

  it('ends a parked node whose deadline passes `deadline`, with no process started for it', async () => {
    const dir = await resumeDir({
      scripts: [
        { steps: [{ tool_calls: [{ name: 'ask_human', args: { question: 'Anyone?' } }] }] },
      ],
    });
    const started = Date.now();
    const run = await dir.run('Ask and wait.', { ARBOR_PARK_AFTER_MS: '200' }, [
      '--ask-fallback',
      'wait',
      '--deadline',
      '3s',
    ]);
    expect(run.code, run.stderr).toBe(7);
    expect(Date.now() - started).toBeGreaterThanOrEqual(3_000);
    const events = eventLines(run.stderr);
    const kinds = events.map((e) => String(e.event));
    // Parked once, never woken: its one child started and nothing started after it parked.
    expect(kinds.filter((k) => k === 'child.ready')).toHaveLength(1);
    expect(kinds.indexOf('node.parked')).toBeGreaterThan(kinds.indexOf('child.ready'));
    expect(kinds).not.toContain('node.woken');
    const end = events.find((e) => e.event === 'node.end');
    expect(end?.status).toBe('deadline');
    expect(String(end?.reason)).toMatch(/parked/);
    expect(dir.llm.requests).toHaveLength(1);
    // The question is withdrawn with the node.
    expect(events.find((e) => e.event === 'gate.closed')).toMatchObject({ answered: false });
  });

  it('cancels a parked tree without waking any of it', async () => {
    const dir = await resumeDir(ASKING_TREE);
    const live = parkingRun(dir);
    await live.waitUntil(
      () => live.events.filter((e) => e.event === 'node.parked').length === 3,
      'three nodes parked',
    );
    live.signal('SIGINT');
    await live.exited;
    const ends = live.events.filter((e) => e.event === 'node.end');
    expect(ends.map((e) => e.status)).toEqual(['cancelled', 'cancelled', 'cancelled']);
    expect(live.events.filter((e) => e.event === 'child.ready')).toHaveLength(3);
    expect(live.events.filter((e) => e.event === 'node.woken')).toEqual([]);
  });

  it('keeps an await timeout running while the awaiting node lies parked, and wakes it when it fires', async () => {
    const dir = await resumeDir({
      scripts: [
        {
          match: { contains: 'Asker:' },
          steps: [{ tool_calls: [{ name: 'ask_human', args: { question: 'Anyone?' } }] }],
        },
        {
          steps: [
            {
              tool_calls: [
                { name: 'subagent.run', args: { instruction: 'Asker: ask.', mode: 'async' } },
              ],
            },
            { tool_calls: [{ name: 'subagent.await', args: { handle: 'n1', timeout_ms: 2000 } }] },
            { text: 'Gave up waiting.' },
          ],
        },
      ],
    });
    const run = await dir.run('Wait a little.', { ARBOR_PARK_AFTER_MS: '200' }, [
      '--ask-fallback',
      'wait',
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('Gave up waiting.');
    const events = eventLines(run.stderr);
    const root = (event: string) => events.filter((e) => e.event === event && e.node_id === 'n0');
    // The root parked on its await and woke when the timeout fired, not before.
    expect(root('node.parked').map((e) => e.waiting)).toEqual([['subagent.await']]);
    expect(root('node.woken')).toHaveLength(1);
    expect(Number(root('node.woken')[0]?.parked_ms)).toBeGreaterThanOrEqual(1_000);
    // Four model calls, as without parking: the root's three, the asker's one.
    expect(dir.llm.requests).toHaveLength(4);
  });
});
