import { describe, expect, it } from 'vitest';
import { buildAnthropicRequest } from '../../src/intel/anthropic-request.js';
import { decodeAnthropicResponse } from '../../src/intel/anthropic-response.js';
import { AnthropicStreamDecoder } from '../../src/intel/anthropic-stream.js';
import type { DialectCall } from '../../src/intel/dialect.js';
import type { ModelRequest } from '../../src/intel/index.js';
import { ToolNames } from '../../src/intel/wire-names.js';
import { isArborError, type Sampling, type TranscriptMessage } from '../../src/protocol/index.js';
import { anthropicStreamEvents } from '../../src/testing/fake-llm/anthropic-reply.js';
import { AnthropicRules } from '../../src/testing/fake-llm/anthropic-rules.js';
import type { ScriptedAnswer } from '../../src/testing/fake-llm/scripted-answer.js';

const NAMES = new ToolNames([{ name: 'fs.read' }]);
const THINKING = { type: 'thinking', thinking: 'Read x, then answer.', signature: 'c2lnbmVk' };
const REDACTED = { type: 'redacted_thinking', data: 'ZW5jcnlwdGVk' };

function call(request: ModelRequest, sampling: Sampling = {}, model = 'claude-a'): DialectCall {
  return {
    request,
    model,
    sampling,
    stream: false,
    names: new ToolNames(request.tools),
    endpoint: {
      url: 'http://127.0.0.1:1/v1',
      dialect: 'anthropic',
      headers: {},
      prompt_cache: { enabled: false, ttl: '5m' },
    },
  };
}

/** A tool-use turn whose assistant message thought first (on `claude-a`). */
const TURN: TranscriptMessage[] = [
  { role: 'user', text: 'Read x.' },
  {
    role: 'assistant',
    text: 'Reading.',
    tool_calls: [{ id: 'a', name: 'fs.read', args: { path: 'x' } }],
    reasoning: { dialect: 'anthropic', model: 'claude-a', blocks: [THINKING, REDACTED] },
  },
  { role: 'tool', id: 'a', name: 'fs.read', content: 'X', is_error: false },
];

describe('Anthropic extended thinking: the request', () => {
  it('turns a thinking budget into `thinking`, with room for the answer above it', () => {
    const body = buildAnthropicRequest(
      call({ messages: TURN }, { thinking_budget_tokens: 2000, temperature: 0.3, top_p: 0.5 }),
    );
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 2000 });
    expect(body.max_tokens).toBe(2000 + 4096);
    // The API refuses temperature with thinking, and top_p below 0.95.
    expect(body).not.toHaveProperty('temperature');
    expect(body).not.toHaveProperty('top_p');
    const kept = buildAnthropicRequest(
      call(
        { messages: TURN },
        { thinking_budget_tokens: 2000, max_output_tokens: 3000, top_p: 0.97 },
      ),
    );
    expect(kept).toMatchObject({ max_tokens: 3000, top_p: 0.97 });
  });

  it('sends no `thinking` and keeps temperature without a budget', () => {
    const body = buildAnthropicRequest(call({ messages: TURN }, { temperature: 0.3 }));
    expect(body).not.toHaveProperty('thinking');
    expect(body).toMatchObject({ max_tokens: 4096, temperature: 0.3 });
  });

  it('refuses an output cap at or below the budget, naming both', () => {
    let caught: unknown;
    try {
      buildAnthropicRequest(
        call({ messages: TURN }, { thinking_budget_tokens: 2000, max_output_tokens: 2000 }),
      );
    } catch (error) {
      caught = error;
    }
    expect(isArborError(caught, 'config')).toBe(true);
    expect((caught as Error).message).toContain(
      'Expected `max_output_tokens` (2000 tokens) to be greater than `thinking_budget_tokens` (2000 tokens)',
    );
  });

  it('refuses a forced tool choice with thinking', () => {
    expect(() =>
      buildAnthropicRequest(
        call({ messages: TURN, toolChoice: 'required' }, { thinking_budget_tokens: 1024 }),
      ),
    ).toThrow('Expected tool choice `auto` or `none` with extended thinking');
  });

  it('sends the thinking blocks back first, verbatim and in order, to the same model', () => {
    const body = buildAnthropicRequest(call({ messages: TURN }, { thinking_budget_tokens: 1024 }));
    const content = body.messages[1]?.content;
    expect(content).toEqual([
      THINKING,
      REDACTED,
      { type: 'text', text: 'Reading.' },
      { type: 'tool_use', id: 'a', name: 'fs_read', input: { path: 'x' } },
    ]);
    // The very objects stored, not copies that might differ.
    expect((content as unknown[])[0]).toBe(THINKING);
  });

  it.each([
    ['another model (a failover, a degrade, a swap)', 'claude-b', 'anthropic'],
    ['another dialect', 'claude-a', 'openai-responses'],
  ])('drops them for %s', (_name, model, dialect) => {
    const messages = TURN.map((m) =>
      m.role === 'assistant' && m.reasoning !== undefined
        ? { ...m, reasoning: { ...m.reasoning, dialect } }
        : m,
    );
    const body = buildAnthropicRequest(call({ messages }, { thinking_budget_tokens: 1024 }, model));
    expect(body.messages[1]?.content).toEqual([
      { type: 'text', text: 'Reading.' },
      { type: 'tool_use', id: 'a', name: 'fs_read', input: { path: 'x' } },
    ]);
    // Inside that tool-use turn the call goes without thinking: with it on, Anthropic (and the
    // fake, playing it) refuses an assistant turn that does not open with its thinking.
    expect(body.thinking).toBeUndefined();
    expect(new AnthropicRules().refusal(body)).toBeUndefined();
    expect(
      new AnthropicRules().refusal({ ...body, thinking: { type: 'enabled', budget_tokens: 1024 } }),
    ).toMatch(/must start with a thinking block/);
  });

  it('thinks again once the turn whose thinking was dropped has ended', () => {
    const messages: TranscriptMessage[] = [
      ...TURN,
      { role: 'assistant', text: 'Done.', tool_calls: [] },
      { role: 'user', text: 'Next.' },
    ];
    const body = buildAnthropicRequest(
      call({ messages }, { thinking_budget_tokens: 1024 }, 'claude-b'),
    );
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 1024 });
  });
});

describe('Anthropic extended thinking: the answer', () => {
  const RESPONSE = {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'claude-a-20250101',
    content: [
      { ...THINKING, extra: 'kept' },
      REDACTED,
      { type: 'text', text: 'Reading.' },
      { type: 'tool_use', id: 'a', name: 'fs_read', input: { path: 'x' } },
    ],
    stop_reason: 'tool_use',
    usage: {
      input_tokens: 10,
      cache_creation_input_tokens: 300,
      cache_read_input_tokens: 2000,
      cache_creation: { ephemeral_5m_input_tokens: 100, ephemeral_1h_input_tokens: 200 },
      output_tokens: 50,
    },
  };

  it('keeps thinking and redacted thinking verbatim, in order, beside text and tool calls', () => {
    const decoded = decodeAnthropicResponse(RESPONSE, NAMES);
    expect(decoded.text).toBe('Reading.');
    expect(decoded.toolCalls).toEqual([{ id: 'a', name: 'fs.read', args: { path: 'x' } }]);
    expect(decoded.reasoning).toEqual({
      dialect: 'anthropic',
      model: 'claude-a-20250101',
      blocks: [{ ...THINKING, extra: 'kept' }, REDACTED],
    });
    expect(decoded.reasoning?.blocks[0]).toBe(RESPONSE.content[0]);
  });

  it('splits cache reads and writes out of usage, input tokens staying the total', () => {
    expect(decodeAnthropicResponse(RESPONSE, NAMES).usage).toEqual({
      input_tokens: 10 + 300 + 2000,
      output_tokens: 50,
      cache_read_tokens: 2000,
      cache_write_tokens: 300,
      cache_write_1h_tokens: 200,
    });
  });

  it('has no reasoning when the answer did not think', () => {
    const plain = { ...RESPONSE, content: [{ type: 'text', text: 'Hi.' }] };
    expect(decodeAnthropicResponse(plain, NAMES)).not.toHaveProperty('reasoning');
  });

  const ANSWER: ScriptedAnswer = {
    seq: 1,
    model: 'claude-a',
    text: 'Reading.',
    chunkChars: 4,
    toolCalls: [{ id: 'a', name: 'fs_read', args: { path: 'x' } }],
    usage: { input_tokens: 2310, output_tokens: 50 },
  };

  it.each([
    [
      'thinking',
      { type: 'thinking' as const, thinking: THINKING.thinking, signature: THINKING.signature },
    ],
    ['redacted thinking', { type: 'redacted_thinking' as const, data: REDACTED.data }],
  ])('puts streamed %s together whole, and shows none of it as text', (_name, block) => {
    const events = anthropicStreamEvents(ANSWER, {
      thinking: block,
      cache: { read: 2000, write5m: 100, write1h: 200 },
    });
    if (block.type === 'thinking') {
      expect(events.join('')).toContain('"type":"thinking_delta"');
      expect(events.join('')).toContain('"type":"signature_delta"');
    }
    const decoder = new AnthropicStreamDecoder(NAMES);
    // Each event is `event: NAME\ndata: JSON\n\n`.
    const deltas = events.flatMap((text) => {
      const [name = '', data = ''] = text.trim().split('\n');
      return decoder.push({
        event: name.slice('event: '.length),
        data: data.slice('data: '.length),
      });
    });
    // Text deltas carry the answer only; the thinking yields none.
    const texts = deltas.flatMap((delta) => (delta.type === 'text' ? [delta.text] : []));
    expect(texts).toEqual(['Read', 'ing.']);
    const decoded = decoder.finish();
    expect(decoded.reasoning).toEqual({ dialect: 'anthropic', model: 'claude-a', blocks: [block] });
    expect(decoded.usage).toEqual({
      input_tokens: 2310,
      output_tokens: 50,
      cache_read_tokens: 2000,
      cache_write_tokens: 300,
      cache_write_1h_tokens: 200,
    });
  });
});
