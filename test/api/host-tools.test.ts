import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { defineTool, isArborError } from '../../src/index.js';
import { collect, openArbor, toolResults, weather } from './helpers.js';

describe('host tools', () => {
  it('are served to the root and to a process child whose allow-list includes them', async () => {
    const { arbor, server } = await openArbor(
      {
        scripts: [
          {
            match: { contains: 'Scout' },
            steps: [
              { tool_calls: [{ name: 'weather.lookup', args: { city: 'Bergen' } }] },
              { text: 'Bergen done.' },
            ],
          },
          {
            steps: [
              { tool_calls: [{ name: 'weather.lookup', args: { city: 'Oslo' } }] },
              {
                tool_calls: [
                  {
                    name: 'subagent.run',
                    args: { instruction: 'Scout: Bergen.', tools: ['weather.lookup'] },
                  },
                ],
              },
              { text: 'All done.' },
            ],
          },
        ],
      },
      { tools: [weather] },
    );
    const run = arbor.run('Weather, please.');
    const events = await collect(run.events);
    const result = await run.result;
    expect(result).toMatchObject({ status: 'completed', text: 'All done.', exitCode: 0 });
    const calls = events.filter((e) => e.type === 'tool.result' && e.name === 'weather.lookup');
    expect(calls.map((e) => [e.path, e.type === 'tool.result' && e.isError])).toEqual([
      ['0', false],
      ['0.1', false],
    ]);
    // Each result carries where the call came from: the host ran it for that node.
    const bodies = server.requests.map((r) => JSON.stringify(r.body));
    expect(
      bodies.some((b) => b.includes('\\"path\\":\\"0.1\\"') && b.includes('\\"depth\\":1')),
    ).toBe(true);
    expect(bodies.some((b) => b.includes('\\"path\\":\\"0\\"') && b.includes('Oslo'))).toBe(true);
  });

  it('are served the same way to an in-process (spawn) child', async () => {
    const { arbor } = await openArbor(
      {
        scripts: [
          {
            match: { contains: 'Inline' },
            steps: [
              { tool_calls: [{ name: 'weather.lookup', args: { city: 'Tromsø' } }] },
              { text: 'Tromsø done.' },
            ],
          },
          {
            steps: [
              {
                tool_calls: [
                  {
                    name: 'subagent.run',
                    args: { instruction: 'Inline: Tromsø.', provider: 'spawn' },
                  },
                ],
              },
              { text: 'done' },
            ],
          },
        ],
      },
      { tools: [weather] },
    );
    const run = arbor.run('Go.');
    const events = await collect(run.events);
    expect((await run.result).status).toBe('completed');
    const spawned = events.find((e) => e.type === 'node.spawned' && e.path === '0.1');
    expect(spawned?.type === 'node.spawned' && spawned.provider).toBe('spawn');
    const result = events.find((e) => e.type === 'tool.result' && e.path === '0.1');
    expect(
      result?.type === 'tool.result' && result.name === 'weather.lookup' && !result.isError,
    ).toBe(true);
  });

  it('are not offered to a child whose allow-list leaves them out', async () => {
    const { arbor, server } = await openArbor(
      {
        scripts: [
          { match: { contains: 'Scout' }, steps: [{ text: 'No tools for me.' }] },
          {
            steps: [
              {
                tool_calls: [
                  {
                    name: 'subagent.run',
                    args: { instruction: 'Scout: nothing.', tools: ['fs.read'] },
                  },
                ],
              },
              { text: 'done' },
            ],
          },
        ],
      },
      { tools: [weather] },
    );
    await arbor.run('Go.').result;
    const offered = (body: unknown) =>
      ((body as { tools?: { function: { name: string } }[] }).tools ?? []).map(
        (t) => t.function.name,
      );
    const scout = server.requests.find(
      (r) => JSON.stringify(r.body).includes('Scout: nothing.') && r.seq > 0,
    );
    const root = server.requests[0];
    expect(offered(root?.body)).toContain('weather_lookup');
    expect(offered(scout?.body)).not.toContain('weather_lookup');
  });

  it('answers bad arguments with the fixable error and a thrown error as a tool error', async () => {
    const failing = defineTool({
      name: 'flaky.call',
      description: 'Always fails',
      input: z.object({}),
      run: () => {
        throw new Error('the upstream is down');
      },
    });
    const { arbor, server } = await openArbor(
      {
        scripts: [
          {
            steps: [
              {
                tool_calls: [
                  { name: 'weather.lookup', args: { city: 5 } },
                  { name: 'flaky.call', args: {} },
                ],
              },
              { text: 'coped' },
            ],
          },
        ],
      },
      { tools: [weather, failing] },
    );
    const result = await arbor.run('Try.').result;
    expect(result.status).toBe('completed');
    const results = toolResults(server.requests.at(-1)?.body);
    expect(results[0]).toMatch(/`city`.*expected string/i);
    expect(results[1]).toBe('Error: `flaky.call` failed: the upstream is down');
  });

  it('sees ctx.signal abort when the run is cancelled', async () => {
    let aborted: unknown;
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const slow = defineTool({
      name: 'slow.wait',
      description: 'Waits until aborted',
      input: z.object({}),
      run: (_, ctx) =>
        new Promise((resolve) => {
          started();
          ctx.signal.addEventListener('abort', () => {
            aborted = ctx.signal.reason;
            resolve('stopped');
          });
        }),
    });
    const { arbor } = await openArbor(
      { scripts: [{ steps: [{ tool_calls: [{ name: 'slow.wait', args: {} }] }, { text: 'x' }] }] },
      { tools: [slow] },
    );
    const run = arbor.run('Wait.');
    await running;
    await run.cancel('enough');
    const result = await run.result;
    expect(result.status).toBe('cancelled');
    expect(result.exitCode).toBe(130);
    expect(String(aborted)).toContain('enough');
  });

  it('refuses names that are not tool names or are arbor’s own', () => {
    const input = z.object({});
    const attempt = (name: string) => () =>
      defineTool({ name, description: '', input, run: () => 1 });
    expect(attempt('fs.read')).toThrow(/arbor's own/);
    expect(attempt('exec')).toThrow(/arbor's own/);
    expect(attempt('has space')).toThrow(/not a tool name/);
    try {
      defineTool({ name: 'x.y', description: '', input: z.string(), run: () => 1 });
      expect.unreachable();
    } catch (error) {
      expect(isArborError(error, 'config')).toBe(true);
      expect((error as Error).message).toContain('z.object');
    }
  });
});
