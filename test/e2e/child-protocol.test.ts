import { beforeAll, describe, expect, it } from 'vitest';
import type { AgentFrame } from '../../src/protocol/index.js';
import {
  ProcessRun,
  type ChildCommand,
  type ProcessRunHandlers,
} from '../../src/supervisor/index.js';
import { CHILD_ENTRIES, entryCommand } from '../helpers/child-entries.js';
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

// Every test here runs against the child started from the bundle and from its start-up snapshot:
// the two must behave the same.
describe.each(CHILD_ENTRIES)('a child started from the %s', (entry) => {
  let command: ChildCommand;
  beforeAll(async () => {
    command = await entryCommand(entry);
  }, 120_000);

  describe('a real child process against the fake LLM', () => {
    it('answers pings at once during a 2-second model call', async () => {
      const server = await fakeLlm(steps({ text: 'slow answer', delay_ms: 2_000 }));
      const frames: AgentFrame[] = [];
      const payload = testPayload({
        intelligence: { endpoints: [{ url: server.url }], model: 'm' },
      });
      const run = new ProcessRun(payload, {
        command,
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
        command,
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

  describe('hot swap with restart-turn', () => {
    it('discards the turn in flight and runs it again on the new model', async () => {
      const oldServer = await fakeLlm(steps({ text: 'answer from the old model', delay_ms: 800 }));
      const newServer = await fakeLlm(steps({ text: 'answer from the new model' }));
      const frames: AgentFrame[] = [];
      const payload = testPayload({
        warm: true,
        intelligence: { endpoints: [{ url: oldServer.url }], model: 'old-model' },
      });
      const run = new ProcessRun(payload, {
        command,
        env: { PATH: process.env.PATH },
        timing: FAST_TIMING,
        handlers: handlers(frames),
      });
      await run.ready();
      await oldServer.waitForRequests(1);
      run.send({
        type: 'swap_intel',
        intelligence: {
          endpoints: [{ url: newServer.url, dialect: 'openai', headers: {} }],
          model: 'new-model',
          sampling: {},
          timeout_ms: 10_000,
          retries: 0,
          breaker: { threshold: 3, cooldown_ms: 5000, cooldown_max_ms: 60000 },
          prices: {},
        },
        policy: 'restart-turn',
      });
      while (!frames.some((f) => f.type === 'turn'))
        await new Promise((resolve) => setTimeout(resolve, 20));
      const turn = frames.find((f) => f.type === 'turn');
      expect(turn?.type === 'turn' && turn.outcome.result).toBe('answer from the new model');
      expect(frames.some((f) => f.type === 'event' && f.event === 'turn.restarted')).toBe(true);
      expect(newServer.requests).toHaveLength(1);
      // The turn ran again from the same pre-turn state: the old answer is not in the transcript.
      expect(JSON.stringify(newServer.requests[0]?.body)).not.toContain(
        'answer from the old model',
      );
      run.send({ type: 'cancel', reason: 'done' });
      const end = await run.result;
      // Closing keeps the last answer rather than overwriting it with nothing.
      expect(end.outcome).toMatchObject({
        status: 'completed',
        result: 'answer from the new model',
      });
    });

    it('keeps the turn when the swap leaves the model unchanged (finish-on-old applies next turn)', async () => {
      const first = await fakeLlm(steps({ text: 'first', delay_ms: 500 }));
      const second = await fakeLlm(steps({ text: 'second' }));
      const frames: AgentFrame[] = [];
      const payload = testPayload({
        warm: true,
        intelligence: { endpoints: [{ url: first.url }], model: 'm' },
      });
      const run = new ProcessRun(payload, {
        command,
        env: { PATH: process.env.PATH },
        timing: FAST_TIMING,
        handlers: handlers(frames),
      });
      await first.waitForRequests(1);
      run.send({
        type: 'swap_intel',
        intelligence: {
          endpoints: [{ url: second.url, dialect: 'openai', headers: {} }],
          model: 'm',
          sampling: {},
          timeout_ms: 10_000,
          retries: 0,
          breaker: { threshold: 3, cooldown_ms: 5000, cooldown_max_ms: 60000 },
          prices: {},
        },
        policy: 'finish-on-old',
      });
      run.send({ type: 'inject', message: 'next' });
      while (frames.filter((f) => f.type === 'turn').length < 2)
        await new Promise((resolve) => setTimeout(resolve, 20));
      const turns = frames.filter(
        (f): f is Extract<AgentFrame, { type: 'turn' }> => f.type === 'turn',
      );
      expect(turns.map((f) => f.outcome.result)).toEqual(['first', 'second']);
      expect(first.requests).toHaveLength(1);
      expect(second.requests).toHaveLength(1);
      run.send({ type: 'cancel', reason: 'done' });
      await run.result;
    });
  });
});
