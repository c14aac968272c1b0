import { describe, expect, it } from 'vitest';
import { createModelClient } from '../../src/intel/index.js';
import { AgentSession, type SessionHooks } from '../../src/loop/index.js';
import { ArborError, LimitsSchema, type TranscriptMessage } from '../../src/protocol/index.js';
import type { Tool } from '../../src/tools/index.js';
import { ToolSet } from '../helpers/tool-set.js';
import { fakeLlm, steps, testIntel } from '../helpers/fake-llm.js';

/** A test tool that waits, and records when it started and finished. */
function waitTool(log: string[]): Tool {
  return {
    def: {
      name: 'test.wait',
      description: 'wait',
      input_schema: {
        type: 'object',
        properties: { ms: { type: 'integer' }, tag: { type: 'string' } },
      },
    },
    run: async (args) => {
      const tag = String(args.tag);
      log.push(`start ${tag}`);
      await new Promise((resolve) => setTimeout(resolve, Number(args.ms)));
      log.push(`end ${tag}`);
      return { content: `waited for ${tag}`, isError: false };
    },
  };
}

async function session(
  playbook: Parameters<typeof fakeLlm>[0],
  tools: Tool[],
  limits: Record<string, unknown> = {},
  hooks: SessionHooks = {},
) {
  const server = await fakeLlm(playbook);
  const model = createModelClient(testIntel([{ url: server.url, dialect: 'openai', headers: {} }]));
  const agent = new AgentSession({
    model,
    tools: new ToolSet(tools),
    system: 'You test.',
    transcript: [{ role: 'user', text: 'Go.' }],
    limits: LimitsSchema.parse(limits),
    hooks,
  });
  return { server, agent };
}

const signal = new AbortController().signal;

describe('AgentSession', () => {
  it('runs the tool calls of one message concurrently and commits results in the model order', async () => {
    const log: string[] = [];
    const { server, agent } = await session(
      steps(
        {
          tool_calls: [
            { name: 'test.wait', args: { ms: 150, tag: 'slow' } },
            { name: 'test.wait', args: { ms: 10, tag: 'fast' } },
          ],
        },
        { text: 'both done' },
      ),
      [waitTool(log)],
    );
    const report = await agent.runTurn(undefined, { signal });
    expect(log).toEqual(['start slow', 'start fast', 'end fast', 'end slow']);
    const results = report.messages.filter(
      (m): m is Extract<TranscriptMessage, { role: 'tool' }> => m.role === 'tool',
    );
    expect(results.map((m) => m.content)).toEqual(['waited for slow', 'waited for fast']);
    expect(report).toMatchObject({
      outcome: { status: 'completed', result: 'both done' },
      rounds: 2,
      toolCalls: 2,
    });
    // The model saw the tool under its wire name, and got both results back in its order.
    const second = JSON.stringify(server.requests[1]?.body);
    expect(JSON.stringify(server.requests[0]?.body)).toContain('"test_wait"');
    expect(second.indexOf('waited for slow')).toBeLessThan(second.indexOf('waited for fast'));
  });

  it('acts on finish after the whole round, and takes its result and status', async () => {
    const log: string[] = [];
    const { agent } = await session(
      steps({
        tool_calls: [
          { name: 'finish', args: { result: { answer: 42 }, status: 'completed' } },
          { name: 'test.wait', args: { ms: 20, tag: 'after' } },
        ],
      }),
      [waitTool(log)],
    );
    const report = await agent.runTurn(undefined, { signal });
    expect(log).toEqual(['start after', 'end after']);
    expect(report.outcome).toMatchObject({
      status: 'completed',
      result: { answer: 42 },
      partial: false,
    });
    expect(report.finish).toMatchObject({ status: 'completed' });
  });

  it('answers a call to an unknown tool with an error the model can read', async () => {
    const { server, agent } = await session(
      steps(
        { tool_calls: [{ name: 'fs.delete_everything', args: {} }] },
        { text: 'ok, no such tool' },
      ),
      [],
    );
    const report = await agent.runTurn(undefined, { signal });
    expect(report.outcome.status).toBe('completed');
    const tool = report.messages.find((m) => m.role === 'tool');
    expect(tool).toMatchObject({
      is_error: true,
      content: expect.stringContaining('Unknown tool `fs_delete_everything`') as unknown,
    });
    expect(JSON.stringify(server.requests[1]?.body)).toContain('Unknown tool');
  });

  it('reports usage after every model call and events for each step and tool', async () => {
    const usages: number[] = [];
    const events: string[] = [];
    const { agent } = await session(
      steps(
        {
          tool_calls: [{ name: 'test.wait', args: { ms: 1, tag: 'a' } }],
          usage: { input_tokens: 10, output_tokens: 1 },
        },
        { text: 'done', usage: { input_tokens: 20, output_tokens: 2 } },
      ),
      [waitTool([])],
      {},
      { onUsage: (u) => usages.push(u.input_tokens), onEvent: (event) => events.push(event.type) },
    );
    const report = await agent.runTurn(undefined, { signal });
    expect(usages).toEqual([10, 20]);
    expect(report.usage).toEqual({ input_tokens: 30, output_tokens: 3 });
    expect(events).toEqual([
      'loop.step',
      'model.tools',
      'model.system',
      'model.call',
      'tool.call',
      'tool.result',
      'loop.step',
      'text.delta',
      'model.call',
      'loop.stop',
    ]);
  });

  it('stops before the model call that would pass the step limit, keeping the partial answer', async () => {
    const { server, agent } = await session(
      steps(
        { text: 'thinking…', tool_calls: [{ name: 'test.wait', args: { ms: 1, tag: '1' } }] },
        { tool_calls: [{ name: 'test.wait', args: { ms: 1, tag: '2' } }] },
      ),
      [waitTool([])],
      { max_steps: 2 },
    );
    const report = await agent.runTurn(undefined, { signal });
    expect(report.outcome).toMatchObject({
      status: 'exhausted_steps',
      partial: true,
      result: 'thinking…',
      reason: 'max_steps 2 reached',
    });
    expect(server.requests).toHaveLength(2);
  });

  it.each([
    ['tokens', 'exhausted_tokens'],
    ['usd', 'exhausted_budget'],
    ['window', 'exhausted_budget'],
    ['steps', 'exhausted_steps'],
    ['time', 'deadline'],
  ])(
    'honours admission: a cheaper model when told, then ends by the refused limit (%s)',
    async (limit, status) => {
      const answers: (() => Promise<{ model?: string }>)[] = [
        () => Promise.resolve({}),
        () => Promise.resolve({ model: 'small-model' }),
        () => Promise.reject(new ArborError('budget_refused', 'spent', { details: { limit } })),
      ];
      const estimates: number[] = [];
      const { server, agent } = await session(
        steps(
          { text: 'step one', tool_calls: [{ name: 'test.wait', args: { ms: 1, tag: '1' } }] },
          { text: 'step two', tool_calls: [{ name: 'test.wait', args: { ms: 1, tag: '2' } }] },
          { text: 'never asked' },
        ),
        [waitTool([])],
        {},
        {
          admit: (estimate) => {
            estimates.push(estimate);
            return answers.shift()!();
          },
        },
      );
      const report = await agent.runTurn(undefined, { signal });
      // The second call went to the cheaper model; the third was never sent.
      expect(server.requests.map((r) => (r.body as { model: string }).model)).toEqual([
        'm',
        'small-model',
      ]);
      expect(estimates).toHaveLength(3);
      expect(estimates[2]).toBeGreaterThan(estimates[0]!);
      expect(report.outcome).toMatchObject({ status, reason: 'spent', result: 'step two' });
    },
  );

  it('ends cancelled when its signal fires during a model call', async () => {
    const { server, agent } = await session(steps({ text: 'late', delay_ms: 10_000 }), []);
    const controller = new AbortController();
    const turn = agent.runTurn(undefined, { signal: controller.signal });
    await server.waitForRequests(1);
    controller.abort('operator said stop');
    expect((await turn).outcome).toMatchObject({
      status: 'cancelled',
      reason: 'cancelled: operator said stop',
    });
  });
});
