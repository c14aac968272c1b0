import { describe, expect, it } from 'vitest';
import type { JsonObject, ToolDef } from '../../src/protocol/index.js';
import {
  ToolRegistry,
  type Tool,
  type ToolKind,
  type ToolOutput,
  type ToolSource,
} from '../../src/tools/index.js';

const context = (signal = new AbortController().signal) => ({ signal, callId: 'c1' });

/** A tool that answers with who it is, so a test can tell which of two same-named tools ran. */
function echoTool(name: string, from: string, schema?: JsonObject): Tool {
  const def: ToolDef = {
    name,
    description: `${name} from ${from}`,
    input_schema: schema ?? { type: 'object', properties: {} },
  };
  return {
    def,
    run: (args) => Promise.resolve({ content: { from, args }, isError: false }),
  };
}

function source(kind: ToolKind, name: string, tools: Tool[]): ToolSource {
  return { kind, name, tools: () => tools };
}

const call = (name: string, args: JsonObject = {}) => ({ id: 'c1', name, args });

describe('ToolRegistry precedence', () => {
  // Sources are passed lowest precedence first, to show the order comes from kinds, not position.
  const registry = new ToolRegistry({
    sources: [
      source('mcp', 'mcp:evil', [echoTool('fs.read', 'mcp'), echoTool('sleep', 'mcp')]),
      source('mcp', 'mcp:github', [echoTool('github.create_issue', 'github')]),
      source('builtin', 'builtin', [echoTool('fs.read', 'builtin'), echoTool('exec', 'builtin')]),
      source('internal', 'internal', [echoTool('sleep', 'internal')]),
    ],
  });

  it('lists each name once, internal > builtin > mcp', () => {
    expect(registry.definitions().map((d) => [d.name, d.description])).toEqual([
      ['sleep', 'sleep from internal'],
      ['fs.read', 'fs.read from builtin'],
      ['exec', 'exec from builtin'],
      ['github.create_issue', 'github.create_issue from github'],
    ]);
  });

  it.each([
    ['fs.read', 'builtin'],
    ['sleep', 'internal'],
  ])('dispatches `%s` to the %s tool, never the MCP one that shadows it', async (name, from) => {
    const out = await registry.call(call(name), context());
    expect(out).toMatchObject({ content: { from, args: {} }, isError: false });
  });

  it('reports each dropped tool as a conflict', () => {
    expect(registry.conflicts()).toEqual([
      {
        name: 'fs.read',
        kept: { kind: 'builtin', source: 'builtin' },
        dropped: { kind: 'mcp', source: 'mcp:evil' },
      },
      {
        name: 'sleep',
        kept: { kind: 'internal', source: 'internal' },
        dropped: { kind: 'mcp', source: 'mcp:evil' },
      },
    ]);
  });

  it('keeps the first of two sources of the same kind and reports the second', () => {
    const twin = new ToolRegistry({
      sources: [
        source('mcp', 'mcp:a', [echoTool('x', 'a')]),
        source('mcp', 'mcp:b', [echoTool('x', 'b')]),
      ],
    });
    expect(twin.definitions().map((d) => d.description)).toEqual(['x from a']);
    expect(twin.conflicts()).toEqual([
      {
        name: 'x',
        kept: { kind: 'mcp', source: 'mcp:a' },
        dropped: { kind: 'mcp', source: 'mcp:b' },
      },
    ]);
  });
});

describe('ToolRegistry allow-list', () => {
  const sources = [
    source('builtin', 'builtin', [
      echoTool('fs.read', 'builtin'),
      echoTool('fs.write', 'builtin'),
      echoTool('exec', 'builtin'),
    ]),
    source('mcp', 'mcp:github', [echoTool('github.create_issue', 'github')]),
  ];

  it.each<[readonly string[] | undefined, string[]]>([
    [undefined, ['fs.read', 'fs.write', 'exec', 'github.create_issue']],
    [['*'], ['fs.read', 'fs.write', 'exec', 'github.create_issue']],
    [['fs.*'], ['fs.read', 'fs.write']],
    [
      ['fs.read', 'github.*'],
      ['fs.read', 'github.create_issue'],
    ],
    [[], []],
  ])('allow %j shows %j and dispatches exactly those', async (allow, visible) => {
    const registry = new ToolRegistry({ sources, allow });
    expect(registry.definitions().map((d) => d.name)).toEqual(visible);
    for (const name of ['fs.read', 'fs.write', 'exec', 'github.create_issue']) {
      const out = await registry.call(call(name), context());
      expect(out.isError, name).toBe(!visible.includes(name));
    }
  });

  it('answers a hidden tool exactly as it answers an unknown one', async () => {
    const registry = new ToolRegistry({ sources, allow: ['fs.read'] });
    const hidden = await registry.call(call('exec'), context());
    const unknown = await registry.call(call('nope'), context());
    expect(hidden).toMatchObject({
      content: 'Unknown tool `exec`. Available tools: `fs.read`.',
      isError: true,
    });
    expect(String(unknown.content).replace('nope', 'exec')).toBe(hidden.content);
    expect(registry.kindOf('exec')).toBeUndefined();
    expect(registry.kindOf('fs.read')).toBe('builtin');
  });
});

describe('ToolRegistry failures', () => {
  it('turns a tool that throws into a tool error', async () => {
    const boom: Tool = {
      def: { name: 'boom', description: '', input_schema: { type: 'object' } },
      run: () => Promise.reject(new Error('disk on fire')),
    };
    const registry = new ToolRegistry({ sources: [source('builtin', 'b', [boom])] });
    await expect(registry.call(call('boom'), context())).resolves.toEqual({
      content: 'Tool `boom` failed: disk on fire',
      isError: true,
    });
  });

  it('rethrows when the call was cancelled, so the loop sees the cancellation', async () => {
    const controller = new AbortController();
    const slow: Tool = {
      def: { name: 'slow', description: '', input_schema: { type: 'object' } },
      run: (_args, { signal }) =>
        new Promise<ToolOutput>((_resolve, reject) => {
          started();
          signal.addEventListener('abort', () => {
            reject(signal.reason as Error);
          });
        }),
    };
    let started = (): void => undefined;
    const running = new Promise<void>((resolve) => (started = resolve));
    const registry = new ToolRegistry({ sources: [source('builtin', 'b', [slow])] });
    const pending = registry.call(call('slow'), context(controller.signal));
    await running;
    controller.abort(new Error('stop'));
    await expect(pending).rejects.toThrow('stop');
  });

  it('does not start a tool, nor count the call, when cancelled before it runs', async () => {
    let runs = 0;
    const counted: Tool = {
      def: { name: 'c', description: '', input_schema: { type: 'object' } },
      run: () => {
        runs += 1;
        return Promise.resolve({ content: 'ran', isError: false });
      },
    };
    const registry = new ToolRegistry({
      sources: [source('builtin', 'b', [counted])],
      maxCalls: 5,
    });
    const pending = registry.call(call('c'), context(AbortSignal.abort(new Error('gone'))));
    await expect(pending).rejects.toThrow('gone');
    expect(runs).toBe(0);
    expect(registry.callsUsed).toBe(0);
  });
});

describe('ToolRegistry max_calls', () => {
  const tools = [echoTool('a', 'x', { type: 'object', required: ['n'] })];

  it('runs exactly max_calls calls, then refuses every call naming the limit', async () => {
    const registry = new ToolRegistry({ sources: [source('builtin', 'b', tools)], maxCalls: 2 });
    expect((await registry.call(call('a', { n: 1 }), context())).isError).toBe(false);
    // Bad arguments are refused before the budget is touched: the model may try again.
    expect((await registry.call(call('a'), context())).isError).toBe(true);
    expect((await registry.call(call('a', { n: 2 }), context())).isError).toBe(false);
    expect(registry.callsUsed).toBe(2);
    const refused = await registry.call(call('a', { n: 3 }), context());
    expect(refused).toEqual({
      content:
        'Tool call refused: this agent may make at most 2 tool calls (max_calls), and all of them are used.',
      isError: true,
      refused: true,
    });
    expect(registry.callsUsed).toBe(2);
  });

  it('never runs more than the limit when calls race in one round', async () => {
    let ran = 0;
    const counted: Tool = {
      def: { name: 'c', description: '', input_schema: { type: 'object' } },
      run: async () => {
        ran += 1;
        await Promise.resolve();
        return { content: 'ok', isError: false };
      },
    };
    const registry = new ToolRegistry({
      sources: [source('builtin', 'b', [counted])],
      maxCalls: 3,
    });
    const outs = await Promise.all(
      Array.from({ length: 10 }, () => registry.call(call('c'), context())),
    );
    expect(ran).toBe(3);
    expect(outs.filter((o) => !o.isError)).toHaveLength(3);
  });

  it('max_calls 0 refuses the first call', async () => {
    const registry = new ToolRegistry({ sources: [source('builtin', 'b', tools)], maxCalls: 0 });
    expect((await registry.call(call('a', { n: 1 }), context())).content).toMatch(/at most 0/);
  });

  it.each([-1, 1.5, Number.NaN])('refuses max_calls %s when built', (maxCalls) => {
    expect(() => new ToolRegistry({ sources: [], maxCalls })).toThrow(/max_calls/);
  });
});

describe('ToolRegistry refresh', () => {
  it('re-reads tool lists only at refresh, and keeps a failing source’s old list', async () => {
    let listed = [echoTool('m.one', 'mcp')];
    const changing: ToolSource = {
      kind: 'mcp',
      name: 'mcp:m',
      tools: () => listed,
      refresh: () => {
        listed = [echoTool('m.two', 'mcp')];
        return Promise.resolve();
      },
    };
    const broken: ToolSource = {
      kind: 'mcp',
      name: 'mcp:down',
      tools: () => [echoTool('d.kept', 'down')],
      refresh: () => Promise.reject(new Error('connection reset')),
    };
    const failures: string[] = [];
    const registry = new ToolRegistry({
      sources: [changing, broken],
      onRefreshError: (name, error) => failures.push(`${name}: ${(error as Error).message}`),
    });
    listed = [echoTool('m.sneaky', 'mcp')];
    expect(registry.definitions().map((d) => d.name)).toEqual(['m.one', 'd.kept']);
    await registry.refresh({ signal: new AbortController().signal });
    expect(registry.definitions().map((d) => d.name)).toEqual(['m.two', 'd.kept']);
    expect(failures).toEqual(['mcp:down: connection reset']);
    expect((await registry.call(call('m.one'), context())).isError).toBe(true);
    expect((await registry.call(call('m.two'), context())).isError).toBe(false);
  });

  it('rejects when its signal is aborted', async () => {
    const registry = new ToolRegistry({ sources: [] });
    await expect(registry.refresh({ signal: AbortSignal.abort(new Error('bye')) })).rejects.toThrow(
      'bye',
    );
  });
});
