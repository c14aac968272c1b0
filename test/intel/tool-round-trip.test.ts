import { afterEach, describe, expect, it } from 'vitest';
import {
  createModelClient,
  type IntelClient,
  type ModelDelta,
  type ModelRequest,
  type ModelResponse,
} from '../../src/intel/index.js';
import type { Dialect, ToolDef, TranscriptMessage } from '../../src/protocol/index.js';
import { FakeServers, intelConfig } from '../helpers/intel.js';

const servers = new FakeServers();
afterEach(() => servers.closeAll());

const TOOLS: ToolDef[] = [
  {
    name: 'subagent.run',
    description: 'Run a child agent',
    input_schema: { type: 'object', properties: { instruction: { type: 'string' } } },
  },
  { name: 'fs.read', description: 'Read a file', input_schema: { type: 'object', properties: {} } },
];

const PLAYBOOK = {
  scripts: [
    {
      name: 'orchestrator',
      match: { contains: 'You orchestrate' },
      steps: [
        {
          text: 'Delegating.',
          tool_calls: [
            { name: 'subagent.run', args: { instruction: 'count the files', depth: 1 } },
          ],
          usage: { input_tokens: 1_000, output_tokens: 500 },
        },
        { text: 'The child counted 42 files.', usage: { input_tokens: 2_000, output_tokens: 100 } },
      ],
    },
  ],
};

const PRICES = { 'test-model': { input_per_mtok: 3, output_per_mtok: 15 } };

type Mode = 'generate' | 'stream';

async function run(
  client: IntelClient,
  mode: Mode,
  request: ModelRequest,
): Promise<{ response: ModelResponse; deltas: ModelDelta[] }> {
  if (mode === 'generate') return { response: await client.generate(request), deltas: [] };
  const deltas: ModelDelta[] = [];
  for await (const delta of client.stream(request)) deltas.push(delta);
  const done = deltas.at(-1);
  if (done?.type !== 'done') throw new Error('no done delta');
  return { response: done.response, deltas: deltas.slice(0, -1) };
}

const cases: [Dialect, Mode][] = [
  ['openai', 'generate'],
  ['openai', 'stream'],
  ['anthropic', 'generate'],
  ['anthropic', 'stream'],
];

describe.each(cases)('tool-call round trip (%s, %s)', (dialect, mode) => {
  it('maps tool names both ways and carries the result back in the dialect’s shape', async () => {
    const server = await servers.start(PLAYBOOK);
    const client = createModelClient(
      intelConfig([{ url: server.url, dialect }], { prices: PRICES }),
    );
    const system = 'You orchestrate a team of agents.';
    const history: TranscriptMessage[] = [
      { role: 'user', text: 'How many files are there?', ts: undefined },
    ];

    const first = await run(client, mode, { system, messages: history, tools: TOOLS });
    const call = {
      id: 'call_1',
      name: 'subagent.run',
      args: { instruction: 'count the files', depth: 1 },
    };
    expect(first.response).toMatchObject({
      text: 'Delegating.',
      toolCalls: [call],
      finishReason: 'tool_calls',
      // Tokens only: the supervisor prices usage (src/supervisor/pricing/), never the client.
      usage: { input_tokens: 1_000, output_tokens: 500 },
      model: 'test-model',
      endpointIndex: 0,
    });
    expect(first.response.usageEstimated).toBeUndefined();
    if (mode === 'stream') {
      const text = first.deltas.flatMap((d) => (d.type === 'text' ? [d.text] : [])).join('');
      expect(text).toBe('Delegating.');
      const pieces = first.deltas.flatMap((d) => (d.type === 'tool_call' ? [d] : []));
      expect(pieces[0]).toMatchObject({ index: 0, id: 'call_1', name: 'subagent.run' });
      expect(pieces.length).toBeGreaterThan(1);
      const args = pieces.map((d) => d.argsDelta).join('');
      expect(JSON.parse(args)).toEqual(call.args);
    }

    history.push(
      { role: 'assistant', text: 'Delegating.', tool_calls: [call], ts: undefined },
      {
        role: 'tool',
        id: 'call_1',
        name: 'subagent.run',
        content: { files: 42 },
        is_error: false,
        ts: undefined,
      },
      { role: 'note', text: 'Budget: 80% left.', ts: undefined },
    );
    const second = await run(client, mode, { system, messages: history, tools: TOOLS });
    expect(second.response).toMatchObject({
      text: 'The child counted 42 files.',
      toolCalls: [],
      finishReason: 'stop',
    });

    const [seen1, seen2] = server.requests;
    expect(seen1?.step).toBe(0);
    expect(seen2?.step).toBe(1);
    expect(seen1?.stream).toBe(mode === 'stream');
    if (dialect === 'openai') {
      expect(seen1?.body).toMatchObject({
        tools: [
          {
            type: 'function',
            function: { name: 'subagent_run', parameters: TOOLS[0]?.input_schema },
          },
          { type: 'function', function: { name: 'fs_read' } },
        ],
        tool_choice: 'auto',
      });
      expect(seen2?.body).toMatchObject({
        messages: [
          { role: 'system', content: system },
          { role: 'user', content: 'How many files are there?' },
          {
            role: 'assistant',
            content: 'Delegating.',
            tool_calls: [
              {
                id: 'call_1',
                type: 'function',
                function: { name: 'subagent_run', arguments: JSON.stringify(call.args) },
              },
            ],
          },
          { role: 'tool', tool_call_id: 'call_1', content: '{"files":42}' },
          { role: 'system', content: 'Budget: 80% left.' },
        ],
      });
    } else {
      // Prompt caching is on by default: the system prompt goes as a block with a breakpoint.
      const cached = { type: 'ephemeral' };
      expect(seen1?.body).toMatchObject({
        system: [{ type: 'text', text: system, cache_control: cached }],
        tools: [
          { name: 'subagent_run', input_schema: TOOLS[0]?.input_schema },
          { name: 'fs_read' },
        ],
        tool_choice: { type: 'auto' },
      });
      expect(seen2?.body).toMatchObject({
        system: [{ type: 'text', text: `${system}\n\nBudget: 80% left.`, cache_control: cached }],
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'How many files are there?' }] },
          {
            role: 'assistant',
            content: [
              { type: 'text', text: 'Delegating.' },
              { type: 'tool_use', id: 'call_1', name: 'subagent_run', input: call.args },
            ],
          },
          {
            role: 'user',
            content: [{ type: 'tool_result', tool_use_id: 'call_1', content: '{"files":42}' }],
          },
        ],
      });
    }
  });

  it('marks a failed tool result as an error on the wire', async () => {
    const server = await servers.start(PLAYBOOK);
    const client = createModelClient(intelConfig([{ url: server.url, dialect }]));
    await run(client, mode, {
      system: 'You orchestrate.',
      messages: [
        { role: 'user', text: 'go', ts: undefined },
        {
          role: 'assistant',
          tool_calls: [{ id: 'c9', name: 'fs.read', args: {} }],
          ts: undefined,
        },
        {
          role: 'tool',
          id: 'c9',
          name: 'fs.read',
          content: 'no such file',
          is_error: true,
          ts: undefined,
        },
      ],
      tools: TOOLS,
    });
    const body = server.requests[0]?.body as { messages: { role: string; content: unknown }[] };
    if (dialect === 'openai') {
      expect(body.messages.at(-1)).toEqual({
        role: 'tool',
        tool_call_id: 'c9',
        content: 'Error: no such file',
      });
    } else {
      expect(body.messages.at(-1)).toEqual({
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 'c9',
            content: 'no such file',
            is_error: true,
            cache_control: { type: 'ephemeral' },
          },
        ],
      });
    }
  });
});
