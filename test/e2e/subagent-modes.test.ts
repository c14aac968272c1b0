import { describe, expect, it } from 'vitest';
import { tempDb } from '../helpers/arbor-process.js';
import { fakeLlm } from '../helpers/fake-llm.js';
import { runArbor } from '../helpers/run-arbor.js';

interface Body {
  messages: { role: string; content: string }[];
}

function bodies(server: { requests: readonly { body: unknown }[] }): Body[] {
  return server.requests.map((r) => r.body as Body);
}

function requestsOf(
  server: { requests: readonly { body: unknown }[] },
  instruction: string,
): Body[] {
  return bodies(server).filter((b) =>
    b.messages.some((m) => m.role === 'user' && m.content === instruction),
  );
}

function results(body: Body | undefined): unknown[] {
  return (body?.messages ?? [])
    .filter((m) => m.role === 'tool')
    .map((m) => {
      const text = m.content.replace(/^Error: /, '');
      try {
        return JSON.parse(text) as unknown;
      } catch {
        return text;
      }
    });
}

async function run(playbook: unknown, instruction: string) {
  const server = await fakeLlm(playbook as Parameters<typeof fakeLlm>[0]);
  const result = await runArbor(['run', '--intel', server.url, '--model', 'm', instruction], {
    env: { ARBOR_DB: tempDb() },
  });
  return { ...result, server };
}

describe('subagent modes and tools', () => {
  it('async: await honours its timeout, then returns the result; status and list report the child', async () => {
    const { code, stderr, server } = await run(
      {
        scripts: [
          { match: { contains: 'Slow child' }, steps: [{ text: 'slow result', delay_ms: 1_500 }] },
          {
            steps: [
              {
                tool_calls: [
                  {
                    name: 'subagent.run',
                    args: { instruction: 'Slow child', mode: 'async', provider: 'spawn' },
                  },
                ],
              },
              { tool_calls: [{ name: 'subagent.await', args: { handle: 'n1', timeout_ms: 100 } }] },
              { tool_calls: [{ name: 'subagent.await', args: { handle: 'n1' } }] },
              {
                tool_calls: [
                  { name: 'subagent.status', args: { handle: 'n1' } },
                  { name: 'subagent.list', args: {} },
                ],
              },
              { text: 'unused' },
              { text: 'all done' },
            ],
          },
        ],
      },
      'Coordinate.',
    );
    expect(code, stderr).toBe(0);
    const last = results(requestsOf(server, 'Coordinate.').at(-1));
    expect(last[0]).toEqual({ handle: 'n1', status: 'running', mode: 'async' });
    expect(last[1]).toMatchObject({ handle: 'n1', status: 'running', timed_out: true });
    expect((last[1] as { waited_ms: number }).waited_ms).toBeGreaterThanOrEqual(100);
    expect(last[2]).toMatchObject({ handle: 'n1', status: 'completed', result: 'slow result' });
    expect(last[3]).toMatchObject({
      handle: 'n1',
      path: '0.1',
      status: 'completed',
      mode: 'async',
      provider: 'spawn',
      steps: 1,
    });
    expect(last[4]).toEqual([
      { handle: 'n1', status: 'completed', mode: 'async', instruction: 'Slow child' },
    ]);
  });

  it('warm: a message sent before the sub-agent is ready is delivered once it is', async () => {
    const { code, stderr, server } = await run(
      {
        scripts: [
          { match: { contains: 'early question' }, steps: [{ text: 'answer two' }] },
          { match: { contains: 'Warm helper' }, steps: [{ text: 'answer one' }] },
          {
            steps: [
              {
                // The send follows the spawn at once: the sub-agent's process is still starting.
                tool_calls: [
                  { name: 'subagent.run', args: { instruction: 'Warm helper', mode: 'warm' } },
                  { name: 'subagent.send', args: { handle: 'n1', message: 'early question' } },
                ],
              },
              // Steps are picked by the count of tool results: the first step leaves two.
              { text: 'never asked' },
              { tool_calls: [{ name: 'subagent.await', args: { handle: 'n1' } }] },
              { tool_calls: [{ name: 'subagent.await', args: { handle: 'n1' } }] },
              { text: 'done' },
            ],
          },
        ],
      },
      'Coordinate.',
    );
    expect(code, stderr).toBe(0);
    const last = results(requestsOf(server, 'Coordinate.').at(-1));
    expect(last[1]).toEqual({ handle: 'n1', delivered: true });
    expect(last[2]).toMatchObject({ status: 'completed', result: 'answer one' });
    expect(last[3]).toMatchObject({ status: 'completed', result: 'answer two' });
  });

  it('warm: send delivers the next message, await returns each answer in turn, kill closes it', async () => {
    const { code, stderr, server } = await run(
      {
        scripts: [
          { match: { contains: 'second question' }, steps: [{ text: 'answer two' }] },
          { match: { contains: 'Warm helper' }, steps: [{ text: 'answer one' }] },
          {
            steps: [
              {
                tool_calls: [
                  {
                    name: 'subagent.run',
                    args: { instruction: 'Warm helper', mode: 'warm', provider: 'spawn' },
                  },
                ],
              },
              { tool_calls: [{ name: 'subagent.await', args: { handle: 'n1' } }] },
              {
                tool_calls: [
                  { name: 'subagent.send', args: { handle: 'n1', message: 'second question' } },
                ],
              },
              { tool_calls: [{ name: 'subagent.await', args: { handle: 'n1' } }] },
              { tool_calls: [{ name: 'subagent.kill', args: { handle: 'n1' } }] },
              {
                tool_calls: [
                  { name: 'subagent.send', args: { handle: 'n1', message: 'too late' } },
                ],
              },
              { text: 'done' },
            ],
          },
        ],
      },
      'Coordinate.',
    );
    expect(code, stderr).toBe(0);
    const last = results(requestsOf(server, 'Coordinate.').at(-1));
    expect(last[1]).toMatchObject({ status: 'completed', result: 'answer one' });
    expect(last[2]).toEqual({ handle: 'n1', delivered: true });
    expect(last[3]).toMatchObject({ status: 'completed', result: 'answer two' });
    expect(last[4]).toMatchObject({ handle: 'n1' });
    expect(last[5]).toBe('`n1` has ended; it takes no more messages.');
    // One conversation: the second answer was asked with the first in the transcript.
    expect(JSON.stringify(requestsOf(server, 'Warm helper').at(-1))).toContain('answer one');
  });

  it("refuses a handle that is not one of the caller's sub-agents", async () => {
    const { server } = await run(
      {
        scripts: [
          {
            steps: [
              { tool_calls: [{ name: 'subagent.status', args: { handle: 'n7' } }] },
              { text: 'ok' },
            ],
          },
        ],
      },
      'Coordinate.',
    );
    expect(results(requestsOf(server, 'Coordinate.').at(-1))[0]).toBe(
      'No sub-agent `n7` among yours (yours: none).',
    );
  });

  it("a spawned child sees only its context; a forked child starts from the parent's conversation", async () => {
    const parent = 'Parent task: SECRET-PARENT-INSTRUCTION';
    const { code, stderr, server } = await run(
      {
        scripts: [
          { match: { contains: 'Fresh child' }, steps: [{ text: 'fresh done' }] },
          { match: { contains: 'Forked child' }, steps: [{ text: 'fork done' }] },
          {
            steps: [
              {
                text: 'Looking around first.',
                tool_calls: [{ name: 'memory.get', args: { key: 'PARENT-TOOL-RESULT' } }],
              },
              {
                tool_calls: [
                  {
                    name: 'subagent.run',
                    args: {
                      instruction: 'Fresh child',
                      provider: 'spawn',
                      context: [{ role: 'user', content: 'shared note' }],
                      persona: 'You are a terse reviewer.',
                    },
                  },
                  { name: 'subagent.run', args: { instruction: 'Forked child', provider: 'fork' } },
                ],
              },
              { text: 'unused' },
              { text: 'both done' },
            ],
          },
        ],
      },
      parent,
    );
    expect(code, stderr).toBe(0);
    const fresh = JSON.stringify(requestsOf(server, 'Fresh child')[0]);
    expect(fresh).toContain('shared note');
    expect(fresh).not.toContain('SECRET-PARENT-INSTRUCTION');
    expect(fresh).not.toContain('PARENT-TOOL-RESULT');
    // Its system prompt names who spawned it and carries its persona.
    expect(fresh).toContain('spawned by the orchestrator \\"arbor node 0\\"');
    expect(fresh).toContain('Persona: You are a terse reviewer.');
    const forked = JSON.stringify(requestsOf(server, 'Forked child')[0]);
    expect(forked).toContain('SECRET-PARENT-INSTRUCTION');
    expect(forked).toContain('PARENT-TOOL-RESULT');
    expect(forked).toContain('Looking around first.');
    // The step that delegated is not part of what the fork inherits.
    expect(forked).not.toContain('Fresh child');
  });
});
