import { describe, expect, it } from 'vitest';
import type { TranscriptEntry } from '../../src/protocol/index.js';
import { killAt } from '../helpers/arbor-process.js';
import { readRun, resumeDir, runIdOf } from '../helpers/resume-run.js';

/** The root starts a sub-agent asynchronously, then awaits it; the sub-agent looks, then answers. */
function asyncTree(mode: 'async' | 'detached') {
  return {
    scripts: [
      {
        match: { contains: 'Async:' },
        steps: [
          { text: 'Child looks.', tool_calls: [{ name: 'fs.list', args: { path: '.' } }] },
          { text: 'Child done: the directory is listed.' },
        ],
      },
      {
        steps: [
          {
            tool_calls: [
              { name: 'subagent.run', args: { instruction: 'Async: list the directory.', mode } },
            ],
          },
          { tool_calls: [{ name: 'subagent.await', args: { handle: 'n1' } }] },
          { text: 'Root done: the child answered.' },
        ],
      },
    ],
  };
}

/** The content of the tool results a transcript recorded under `name`. */
function resultsOf(entries: readonly TranscriptEntry[] | undefined, name: string): string[] {
  return (entries ?? []).flatMap((e) =>
    e.op === 'append' && e.message.role === 'tool' && e.message.name === name
      ? [JSON.stringify(e.message.content)]
      : [],
  );
}

/** Whether a model request is the child's: its instruction is a user message. */
function isChild(request: { body: unknown }, marker = 'Async:'): boolean {
  const body = request.body as { messages?: { role: string; content: unknown }[] };
  return (body.messages ?? []).some((m) => m.role === 'user' && String(m.content).includes(marker));
}

/** Model requests of the child that were its first step (no tool result yet). */
function childFirstSteps(requests: readonly { body: unknown }[]): number {
  return requests.filter((r) => isChild(r) && !JSON.stringify(r.body).includes('"role":"tool"'))
    .length;
}

describe('arbor resume: children whose spawn had returned', () => {
  it.each(['async', 'detached'] as const)(
    're-spawns a running %s child on its own, so the resumed parent can await it',
    async (mode) => {
      const dir = await resumeDir(asyncTree(mode));
      // The root's spawn returned (its result recorded); the child has just started.
      const crashed = await dir.run('Delegate.', killAt('tool-result:1'));
      expect(crashed.signal).toBe('SIGKILL');
      const runId = runIdOf(crashed);
      expect(resultsOf(readRun(dir.db, runId).transcripts.get('n0'), 'subagent.run')).toHaveLength(
        1,
      );

      const resumed = await dir.resume(runId);
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(resumed.stdout).toBe('Root done: the child answered.\n');
      const records = readRun(dir.db, runId);
      expect(records.nodes.map((n) => [n.id, n.status])).toEqual([
        ['n0', 'completed'],
        ['n1', 'completed'],
      ]);
      // The root's await got the child's own answer, not a refusal.
      const awaited = resultsOf(records.transcripts.get('n0'), 'subagent.await');
      expect(awaited).toHaveLength(1);
      expect(awaited[0]).toContain('Child done: the directory is listed.');
    },
  );

  it('continues a running async child from its transcript: its completed step is not run again', async () => {
    const dir = await resumeDir(asyncTree('async'));
    // The child's tool result is recorded; the root is awaiting it.
    const crashed = await dir.run('Delegate.', killAt('tool-result:2'));
    expect(crashed.signal).toBe('SIGKILL');
    expect(childFirstSteps(dir.llm.requests)).toBe(1);

    const resumed = await dir.resume(runIdOf(crashed));
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toBe('Root done: the child answered.\n');
    expect(childFirstSteps(dir.llm.requests)).toBe(1);
    const records = readRun(dir.db, runIdOf(crashed));
    expect(resultsOf(records.transcripts.get('n1'), 'fs.list')).toHaveLength(1);
    expect(records.events.filter((e) => e.kind === 'node.resumed').map((e) => e.nodeId)).toEqual([
      'n0',
      'n1',
    ]);
  });

  it('lets a resumed parent await a child that had finished before the crash', async () => {
    const dir = await resumeDir(asyncTree('async'));
    // The child ended and its result is recorded; the root had not awaited it yet.
    const crashed = await dir.run('Delegate.', killAt('child-result:1'));
    expect(crashed.signal).toBe('SIGKILL');
    const before = dir.llm.requests.length;

    const resumed = await dir.resume(runIdOf(crashed));
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toBe('Root done: the child answered.\n');
    // Only the root asked the model again: the child is not run again.
    expect(dir.llm.requests.slice(before).filter((r) => isChild(r))).toHaveLength(0);
    const awaited = resultsOf(
      readRun(dir.db, runIdOf(crashed)).transcripts.get('n0'),
      'subagent.await',
    );
    expect(awaited[0]).toContain('Child done: the directory is listed.');
  });
});

/**
 * The root starts a warm sub-agent, reads its first answer, sends it a second message and reads
 * the answer to that.
 */
const WARM_TALK = {
  scripts: [
    { match: { contains: 'second question' }, steps: [{ text: 'W2: the second, answered.' }] },
    { match: { contains: 'Warm:' }, steps: [{ text: 'W1: ready.' }] },
    {
      steps: [
        {
          tool_calls: [
            { name: 'subagent.run', args: { instruction: 'Warm: be ready.', mode: 'warm' } },
          ],
        },
        { tool_calls: [{ name: 'subagent.await', args: { handle: 'n1' } }] },
        {
          tool_calls: [
            { name: 'subagent.send', args: { handle: 'n1', message: 'second question' } },
          ],
        },
        { tool_calls: [{ name: 'subagent.await', args: { handle: 'n1' } }] },
        { text: 'Root done: two answers.' },
      ],
    },
  ],
};

describe('arbor resume: warm sub-agents', () => {
  it('re-spawns a warm sub-agent with its conversation, its answered turns and the message it had not taken in', async () => {
    const dir = await resumeDir(WARM_TALK);
    // The root's send is recorded (its third tool result); the sub-agent has not answered it.
    const crashed = await dir.run('Talk.', killAt('tool-result:3'));
    expect(crashed.signal).toBe('SIGKILL');
    const runId = runIdOf(crashed);

    const resumed = await dir.resume(runId);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toBe('Root done: two answers.\n');
    const records = readRun(dir.db, runId);
    // Turn 2 is the answer to the second message, not the first answer read again.
    const awaited = resultsOf(records.transcripts.get('n0'), 'subagent.await');
    expect(awaited).toHaveLength(2);
    expect(awaited[0]).toContain('W1: ready.');
    expect(awaited[1]).toContain('W2: the second, answered.');
    // The first turn was answered once: the model was not asked it again.
    const firstTurns = dir.llm.requests.filter(
      (r) => isChild(r, 'Warm:') && !JSON.stringify(r.body).includes('second question'),
    );
    expect(firstTurns).toHaveLength(1);
    expect(records.nodes.map((n) => [n.id, n.status])).toEqual([
      ['n0', 'completed'],
      ['n1', 'completed'],
    ]);
  });
});

describe('arbor resume: repeated instructions', () => {
  it('matches a repeated spawn to the child of the step in flight, not to an earlier one with the same instruction', async () => {
    const dir = await resumeDir({
      scripts: [
        { match: { contains: 'Leaf:' }, steps: [{ text: 'Leaf answered.' }] },
        {
          steps: [
            { tool_calls: [{ name: 'subagent.run', args: { instruction: 'Leaf: answer.' } }] },
            { tool_calls: [{ name: 'subagent.run', args: { instruction: 'Leaf: answer.' } }] },
            { text: 'Root done: asked twice.' },
          ],
        },
      ],
    });
    // The second leaf (the third node minted) is minted; the first had answered, and its result is
    // in the root's transcript.
    const crashed = await dir.run('Ask twice.', killAt('spawn-minted:3'));
    expect(crashed.signal).toBe('SIGKILL');
    const runId = runIdOf(crashed);

    const resumed = await dir.resume(runId);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toBe('Root done: asked twice.\n');
    const records = readRun(dir.db, runId);
    expect(records.nodes.map((n) => [n.id, n.status])).toEqual([
      ['n0', 'completed'],
      ['n1', 'completed'],
      ['n2', 'completed'],
    ]);
    // The second leaf ran; the first was not handed back in its place.
    expect(records.events.filter((e) => e.kind === 'node.reused')).toEqual([
      expect.objectContaining({ nodeId: 'n1' }),
    ]);
  });
});
