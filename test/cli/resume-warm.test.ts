import { describe, expect, it, vi } from 'vitest';
import { type ArborProcess, killAt } from '../helpers/arbor-process.js';
import { readRun, resumeDir, runIdOf } from '../helpers/resume-run.js';

/** A warm root: each message gets its own answer. */
const TURNS = {
  scripts: [
    { match: { contains: 'second' }, steps: [{ text: 'A2: second answered.' }] },
    { steps: [{ text: 'A1: first answered.' }] },
  ],
};

/** Every message text of a model request, in order. */
function messagesOf(request: { body: unknown } | undefined): string[] {
  const body = request?.body as { messages?: { content: unknown }[] } | undefined;
  return (body?.messages ?? []).map((m) => String(m.content));
}

/**
 * Waits until the root's transcript ends with the supervisor's turn mark (matching `mark`), then
 * SIGKILLs the live `arbor run`: the mark follows the announcement, so the crash comes after both.
 * Returns the run's id.
 */
async function killAfterMark(
  db: string,
  live: ArborProcess,
  mark: Record<string, unknown> = {},
): Promise<string> {
  const runId = await vi.waitFor(() =>
    runIdOf({ stdout: '', stderr: live.stderr, code: null, signal: null }),
  );
  await vi.waitFor(() => {
    expect(readRun(db, runId).transcripts.get('n0')?.at(-1)).toMatchObject({ op: 'turn', ...mark });
  });
  live.signal('SIGKILL');
  await live.exited;
  return runId;
}

describe('arbor resume: warm sessions', () => {
  it('does not announce again a turn answered before the crash, and takes the next message', async () => {
    const dir = await resumeDir(TURNS);
    const live = dir.runLive('Say first.', {}, ['--warm']);
    expect(await live.waitForStdoutLines(1)).toEqual(['A1: first answered.']);
    // The supervisor dies while the session waits for its next message.
    const runId = await killAfterMark(dir.db, live);
    expect(readRun(dir.db, runId).run?.status).toBe('interrupted');

    const resumed = await dir.resume(runId, [], {}, 'second\n');
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toBe('A2: second answered.\n');
    expect(dir.llm.requests).toHaveLength(2);
    // The second turn continues the recorded conversation.
    expect(messagesOf(dir.llm.requests[1]).join('\n')).toContain('A1: first answered.');
    expect(readRun(dir.db, runId).run?.status).toBe('completed');
  });

  it('announces once a turn whose answer was recorded but not announced at the crash', async () => {
    const dir = await resumeDir(TURNS);
    const live = dir.runLive('Say first.', killAt('model-call:2'), ['--warm']);
    await live.waitForStdoutLines(1);
    live.writeLine('second');
    expect((await live.exited).signal).toBe('SIGKILL');
    expect(live.stdout).toBe('A1: first answered.\n');
    const runId = runIdOf({ stdout: '', stderr: live.stderr, code: null, signal: null });

    const resumed = await dir.resume(runId, [], {}, '');
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toBe('A2: second answered.\n');
    // The answer was recorded before the crash: the model is not asked again.
    expect(dir.llm.requests).toHaveLength(2);
  });

  it('answers every line of piped input, then closes', async () => {
    const dir = await resumeDir(TURNS);
    const live = dir.runLive('Say first.', {}, ['--warm']);
    live.writeLine('second');
    live.endInput();
    expect((await live.exited).code, live.stderr).toBe(0);
    expect(live.stdout).toBe('A1: first answered.\nA2: second answered.\n');
  });

  it('closes at once when input has ended and the last turn was answered before the crash', async () => {
    const dir = await resumeDir(TURNS);
    const live = dir.runLive('Say first.', {}, ['--warm']);
    expect(await live.waitForStdoutLines(1)).toEqual(['A1: first answered.']);
    const runId = await killAfterMark(dir.db, live);

    const resumed = await dir.resume(runId, [], {}, '');
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toBe('');
    expect(dir.llm.requests).toHaveLength(1);
    expect(readRun(dir.db, runId).run?.status).toBe('completed');
  });

  it('does not answer again a turn that ended on its step limit before the crash', async () => {
    const dir = await resumeDir({
      scripts: [
        { match: { contains: 'second' }, steps: [{ text: 'A2: second answered.' }] },
        { steps: [{ tool_calls: [{ name: 'fs.list', args: { path: '.' } }] }, { text: 'never' }] },
      ],
    });
    const live = dir.runLive('Say first.', {}, ['--warm', '--max-steps', '1']);
    const runId = await killAfterMark(dir.db, live, { outcome: { status: 'exhausted_steps' } });

    const resumed = await dir.resume(runId, [], {}, 'second\n');
    expect(resumed.stdout).toBe('A2: second answered.\n');
    // One call for the first turn, one for the second: the first was not asked again.
    expect(dir.llm.requests).toHaveLength(2);
  });
});
