import { describe, expect, it } from 'vitest';
import { MAX_CACHE_BREAKPOINTS } from '../../src/intel/anthropic-cache.js';
import { buildAnthropicRequest } from '../../src/intel/anthropic-request.js';
import type { DialectCall } from '../../src/intel/dialect.js';
import type { AnthropicSentRequest } from '../../src/intel/anthropic-wire.js';
import type { ModelRequest } from '../../src/intel/index.js';
import { AnthropicRequestSchema } from '../../src/intel/index.js';
import { ToolNames } from '../../src/intel/wire-names.js';
import { FakePromptCache } from '../../src/testing/fake-llm/anthropic-prompt-cache.js';
import type { Endpoint, TranscriptMessage } from '../../src/protocol/index.js';

function call(request: ModelRequest, promptCache?: Endpoint['prompt_cache']): DialectCall {
  return {
    request,
    model: 'claude-test',
    sampling: {},
    stream: false,
    names: new ToolNames(request.tools),
    endpoint: {
      url: 'http://127.0.0.1:1/v1',
      dialect: 'anthropic',
      headers: {},
      ...(promptCache === undefined ? {} : { prompt_cache: promptCache }),
    },
  };
}

const TOOLS = [
  { name: 'fs.read', description: 'Read', input_schema: { type: 'object' } },
  { name: 'fs.list', description: 'List', input_schema: { type: 'object' } },
];

const STEP_ONE: TranscriptMessage[] = [{ role: 'user', text: 'Read x.' }];
const STEP_TWO: TranscriptMessage[] = [
  ...STEP_ONE,
  { role: 'assistant', text: 'Reading.', tool_calls: [{ id: 'a', name: 'fs.read', args: {} }] },
  { role: 'tool', id: 'a', name: 'fs.read', content: 'X', is_error: false },
];

/** Where the request's breakpoints sit, as paths into the body. */
function breakpoints(body: AnthropicSentRequest): string[] {
  const out: string[] = [];
  (body.tools ?? []).forEach((tool, i) => {
    if (tool.cache_control !== undefined) out.push(`tools.${i}`);
  });
  if (Array.isArray(body.system))
    body.system.forEach((block, i) => {
      if (block.cache_control !== undefined) out.push(`system.${i}`);
    });
  body.messages.forEach((message, m) => {
    if (typeof message.content === 'string') return;
    message.content.forEach((block, b) => {
      if ('cache_control' in block && block.cache_control !== undefined)
        out.push(`messages.${m}.content.${b}`);
    });
  });
  return out;
}

describe('Anthropic prompt-cache breakpoints', () => {
  it('are on by default: the last tool, the system prompt as a block, the newest message', () => {
    const body = buildAnthropicRequest(
      call({ system: 'Be brief.', messages: STEP_ONE, tools: TOOLS }),
    );
    expect(breakpoints(body)).toEqual(['tools.1', 'system.0', 'messages.0.content.0']);
    expect(body.system).toEqual([
      { type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } },
    ]);
    expect(body.tools?.[1]?.cache_control).toEqual({ type: 'ephemeral' });
    expect(AnthropicRequestSchema.safeParse(body).success).toBe(true);
  });

  it('move to the newest message as the transcript grows', () => {
    const first = buildAnthropicRequest(call({ system: 'S', messages: STEP_ONE, tools: TOOLS }));
    const second = buildAnthropicRequest(call({ system: 'S', messages: STEP_TWO, tools: TOOLS }));
    expect(breakpoints(first)).toContain('messages.0.content.0');
    // The newest message's tool result carries one, and the first message keeps the one the
    // previous call wrote, so that write is read even when the answer between is long.
    expect(breakpoints(second)).toEqual([
      'tools.1',
      'system.0',
      'messages.0.content.0',
      'messages.2.content.0',
    ]);
    expect(second.messages[2]?.content).toEqual([
      { type: 'tool_result', tool_use_id: 'a', content: 'X', cache_control: { type: 'ephemeral' } },
    ]);
  });

  it('keep reading the conversation from the cache when a step makes many parallel calls', () => {
    // Twelve calls a step: about 25 blocks per step, past the API's 20-block lookback from the
    // newest breakpoint. The fake's cache plays that lookback.
    const cache = new FakePromptCache();
    const messages: TranscriptMessage[] = [{ role: 'user', text: 'Read everything. '.repeat(400) }];
    const reads: number[] = [];
    for (let step = 0; step < 4; step += 1) {
      const body = buildAnthropicRequest(call({ system: 'S', messages, tools: TOOLS }));
      reads.push(cache.account(body, 1, 0).read);
      const calls = Array.from({ length: 12 }, (_, i) => ({
        id: `c${step}-${i}`,
        name: 'fs.read',
        args: { path: `f${i}` },
      }));
      messages.push({ role: 'assistant', text: `Step ${step}.`, tool_calls: calls });
      for (const c of calls)
        messages.push({ role: 'tool', id: c.id, name: 'fs.read', content: 'x', is_error: false });
    }
    // Each step reads everything up to the previous step's newest message: the reads grow.
    for (let step = 2; step < reads.length; step += 1)
      expect(reads[step]).toBeGreaterThan(reads[step - 1] ?? 0);
  });

  it.each([
    ['nothing but messages', { messages: STEP_TWO }],
    [
      'tools, system and a long transcript',
      { system: 'S', messages: [...STEP_TWO, ...STEP_TWO], tools: TOOLS },
    ],
    [
      'system and notes',
      { system: 'S', messages: [...STEP_ONE, { role: 'note' as const, text: 'n' }] },
    ],
  ])('never exceed the API limit of four (%s)', (_name, request: ModelRequest) => {
    const count = breakpoints(buildAnthropicRequest(call(request))).length;
    expect(count).toBeGreaterThan(0);
    expect(count).toBeLessThanOrEqual(MAX_CACHE_BREAKPOINTS);
  });

  it('carry `ttl: "1h"` when the endpoint asks for an hour, and no ttl for five minutes', () => {
    const hour = buildAnthropicRequest(
      call({ system: 'S', messages: STEP_ONE, tools: TOOLS }, { enabled: true, ttl: '1h' }),
    );
    expect(hour.tools?.[1]?.cache_control).toEqual({ type: 'ephemeral', ttl: '1h' });
    expect(hour.system).toEqual([
      { type: 'text', text: 'S', cache_control: { type: 'ephemeral', ttl: '1h' } },
    ]);
    const five = buildAnthropicRequest(
      call({ system: 'S', messages: STEP_ONE }, { enabled: true, ttl: '5m' }),
    );
    expect(five.system).toEqual([
      { type: 'text', text: 'S', cache_control: { type: 'ephemeral' } },
    ]);
  });

  it('are not sent when the endpoint turns caching off', () => {
    const body = buildAnthropicRequest(
      call({ system: 'S', messages: STEP_TWO, tools: TOOLS }, { enabled: false, ttl: '5m' }),
    );
    expect(breakpoints(body)).toEqual([]);
    expect(body.system).toBe('S');
    expect(JSON.stringify(body)).not.toContain('cache_control');
  });

  it('never mark a thinking block, and never change the stored block', () => {
    const thinking = { type: 'thinking', thinking: 'hm', signature: 'sig' };
    const messages: TranscriptMessage[] = [
      { role: 'user', text: 'go' },
      {
        role: 'assistant',
        tool_calls: [],
        reasoning: { dialect: 'anthropic', model: 'claude-test', blocks: [thinking] },
      },
    ];
    const body = buildAnthropicRequest(call({ messages }));
    // The newest message holds only a thinking block, which may not carry a breakpoint.
    expect(body.messages[1]?.content).toEqual([thinking]);
    expect(thinking).toEqual({ type: 'thinking', thinking: 'hm', signature: 'sig' });
  });
});
