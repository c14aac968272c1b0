import { describe, expect, it } from 'vitest';
import { killAt } from '../helpers/arbor-process.js';
import { readRun, resumeDir, runIdOf } from '../helpers/resume-run.js';

/** The root asks a person, then answers; the answer it was given reaches its next model call. */
const ASKS = {
  scripts: [
    {
      steps: [
        {
          text: 'Asking.',
          tool_calls: [{ name: 'ask_human', args: { question: 'Which colour?' } }],
        },
        { text: 'Root done: the colour is chosen.' },
      ],
    },
  ],
};

const WAIT = ['--ask-fallback', 'wait'];

/** The tool results the model was shown, as text. */
function toolResults(requests: readonly { body: unknown }[]): string[] {
  return requests.flatMap((r) =>
    (r.body as { messages: { role: string; content: unknown }[] }).messages
      .filter((m) => m.role === 'tool')
      .map((m) => String(m.content)),
  );
}

/** Runs `ASKS` until its gate opens, and kills the supervisor there. */
async function crashedAtGate() {
  const dir = await resumeDir(ASKS);
  const crashed = await dir.run('Choose a colour.', killAt('gate-open'), WAIT);
  expect(crashed.signal, crashed.stderr).toBe('SIGKILL');
  const runId = runIdOf(crashed);
  const records = readRun(dir.db, runId);
  expect(records.run?.status).toBe('interrupted');
  const interrupted = records.events.find((e) => e.kind === 'run.interrupted');
  expect(interrupted?.data.open_gates).toEqual(['g1']);
  return { dir, runId };
}

describe('arbor resume: gates open at the crash', () => {
  it('takes an answer given while the run lay dead, and asks nobody again', async () => {
    const { dir, runId } = await crashedAtGate();
    const answered = await dir.answer(runId, 'g1', 'blue');
    expect(answered.code, answered.stderr).toBe(0);

    const resumed = await dir.resume(runId, WAIT);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain('Root done: the colour is chosen.');
    const after = readRun(dir.db, runId);
    expect(after.run?.status).toBe('completed');
    expect(after.nodes.map((n) => n.status)).toEqual(['completed']);
    expect(dir.llm.requests.length).toBe(2);
    expect(toolResults(dir.llm.requests).join('\n')).toContain('blue');
  });

  it('asks a gate still open again under its own id, and the answer given then is used', async () => {
    const { dir, runId } = await crashedAtGate();
    const arbor = dir.resumeLive(runId, WAIT);
    const asked = await arbor.waitForEvent('gate.open');
    expect(asked).toMatchObject({ gate: 'g1', question: 'Which colour?', resumed: true });
    const answered = await dir.answer(runId, 'g1', 'green');
    expect(answered.code, answered.stderr).toBe(0);
    expect((await arbor.exited).code, arbor.stderr).toBe(0);

    const after = readRun(dir.db, runId);
    expect(after.run?.status).toBe('completed');
    const gates = after.events.filter((e) => e.kind === 'gate.open').map((e) => e.data.gate);
    // One gate in all: opened before the crash, asked again after it, answered once.
    expect(gates).toEqual(['g1', 'g1']);
    expect(toolResults(dir.llm.requests).join('\n')).toContain('green');
  });
});
