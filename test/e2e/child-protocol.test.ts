import { describe, expect, it } from 'vitest';
import type { AgentFrame } from '../../src/protocol/index.js';
import { childCommand, ProcessRun, type ProcessRunHandlers } from '../../src/supervisor/index.js';
import { fakeLlm, steps } from '../helpers/fake-llm.js';
import { FAST_TIMING, testPayload } from '../helpers/payloads.js';

function handlers(frames: AgentFrame[], tools: string[] = []): ProcessRunHandlers {
  return {
    onFrame: (frame) => frames.push(frame),
    onToolRequest: (frame) => {
      tools.push(frame.name);
      return Promise.resolve({ result: `served ${frame.name}`, is_error: false });
    },
    onBudgetRequest: () => Promise.resolve({ ok: true }),
  };
}

describe('a real child process against the fake LLM', () => {
  it('answers pings at once during a 2-second model call', async () => {
    const server = await fakeLlm(steps({ text: 'slow answer', delay_ms: 2_000 }));
    const frames: AgentFrame[] = [];
    const payload = testPayload({ intelligence: { endpoints: [{ url: server.url }], model: 'm' } });
    const run = new ProcessRun(payload, {
      command: childCommand({}),
      env: { PATH: process.env.PATH },
      timing: FAST_TIMING,
      handlers: handlers(frames),
    });
    await run.ready();
    await server.waitForRequests(1);
    const pongsBefore = frames.filter((f) => f.type === 'pong').length;
    const end = await run.result;
    const callFrames = frames.slice(
      frames.findIndex((f) => f.type === 'event' && f.event === 'loop.step'),
    );
    const pongsDuringCall = callFrames
      .slice(
        0,
        callFrames.findIndex((f) => f.type === 'usage'),
      )
      .filter((f) => f.type === 'pong').length;
    // Pings go out every 200 ms; a child blocked by its model call would answer none.
    expect(pongsDuringCall).toBeGreaterThanOrEqual(5);
    expect(pongsBefore).toBeGreaterThanOrEqual(0);
    expect(end.outcome).toMatchObject({ status: 'completed', result: 'slow answer' });
  });

  it('runs a turn worker over the slice it is handed and ends with turn_done', async () => {
    const server = await fakeLlm(
      steps({ tool_calls: [{ name: 'sleep', args: { ms: 5 } }] }, { text: 'The time is 14:00.' }),
    );
    const frames: AgentFrame[] = [];
    const tools: string[] = [];
    const payload = testPayload({
      instruction: '',
      role: 'turn',
      intelligence: { endpoints: [{ url: server.url }], model: 'm' },
      turn: {
        turn_id: 't-1',
        system: 'You answer briefly.',
        messages: [
          { role: 'user', text: 'Hello.' },
          { role: 'assistant', text: 'Hi.', tool_calls: [] },
          { role: 'user', text: 'What time is it?' },
        ],
        tools: [{ name: 'sleep', description: 'wait', input_schema: { type: 'object' } }],
        internal: ['sleep'],
      },
    });
    const run = new ProcessRun(payload, {
      command: childCommand({}),
      env: { PATH: process.env.PATH },
      timing: FAST_TIMING,
      handlers: handlers(frames, tools),
    });
    const end = await run.result;
    expect(end.via).toBe('turn_done');
    expect(end.turn).toMatchObject({
      turn_id: 't-1',
      status: 'completed',
      text: 'The time is 14:00.',
      rounds: 2,
      tool_calls: 1,
    });
    expect(end.turn?.messages.map((m) => m.role)).toEqual(['assistant', 'tool', 'assistant']);
    expect(tools).toEqual(['sleep']);
    // The model saw the slice it was handed, with the system prompt it was given.
    const first = JSON.stringify(server.requests[0]?.body);
    expect(first).toContain('You answer briefly.');
    expect(first).toContain('What time is it?');
  });
});
