import { describe, expect, it } from 'vitest';
import { buildAnthropicRequest } from '../../src/intel/anthropic-request.js';
import type { DialectCall } from '../../src/intel/dialect.js';
import type { ModelRequest } from '../../src/intel/index.js';
import { AnthropicRequestSchema, OpenAiRequestSchema } from '../../src/intel/index.js';
import { buildOpenAiRequest } from '../../src/intel/openai-request.js';
import { ToolNames } from '../../src/intel/wire-names.js';
import { isArborError, type Sampling } from '../../src/protocol/index.js';

function call(request: ModelRequest, sampling: Sampling = {}, stream = false): DialectCall {
  return {
    request,
    model: 'm',
    sampling,
    stream,
    names: new ToolNames(request.tools),
    endpoint: { url: 'http://127.0.0.1:1/v1', dialect: 'openai', headers: {} },
  };
}

const CONVERSATION: ModelRequest = {
  system: 'Be brief.',
  messages: [
    { role: 'user', text: 'Read two files.' },
    {
      role: 'assistant',
      tool_calls: [
        { id: 'a', name: 'fs.read', args: { path: 'x' } },
        { id: 'b', name: 'fs.read', args: { path: 'y' } },
      ],
    },
    { role: 'tool', id: 'a', name: 'fs.read', content: 'X', is_error: false },
    { role: 'tool', id: 'b', name: 'fs.read', content: ['Y'], is_error: false },
    { role: 'note', text: 'Two steps left.' },
    { role: 'user', text: 'And?' },
    { role: 'user', text: 'Hurry.' },
  ],
  tools: [{ name: 'fs.read', description: 'Read', input_schema: { type: 'object' } }],
};

describe('OpenAI request', () => {
  it('keeps notes in place as system messages and sends tool results as `tool` messages', () => {
    const body = buildOpenAiRequest(call(CONVERSATION));
    expect(body.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Read two files.' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'a', type: 'function', function: { name: 'fs_read', arguments: '{"path":"x"}' } },
          { id: 'b', type: 'function', function: { name: 'fs_read', arguments: '{"path":"y"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'a', content: 'X' },
      { role: 'tool', tool_call_id: 'b', content: '["Y"]' },
      { role: 'system', content: 'Two steps left.' },
      { role: 'user', content: 'And?' },
      { role: 'user', content: 'Hurry.' },
    ]);
    expect(OpenAiRequestSchema.safeParse(body).success).toBe(true);
  });

  it('maps sampling, tool choice and streaming', () => {
    const sampling = {
      temperature: 0.2,
      top_p: 0.9,
      max_output_tokens: 300,
      stop: ['END'],
      seed: 7,
    };
    const body = buildOpenAiRequest(
      call({ ...CONVERSATION, toolChoice: 'required' }, sampling, true),
    );
    expect(body).toMatchObject({
      model: 'm',
      temperature: 0.2,
      top_p: 0.9,
      max_tokens: 300,
      stop: ['END'],
      seed: 7,
      tool_choice: 'required',
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it('sends no tools and no tool choice when the request has none', () => {
    const body = buildOpenAiRequest(call({ messages: [{ role: 'user', text: 'hi' }] }));
    expect(body).toEqual({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
  });
});

/** A call to an endpoint with prompt caching off: the request as it was before breakpoints. */
function uncached(request: ModelRequest, sampling: Sampling = {}, stream = false): DialectCall {
  const plain = call(request, sampling, stream);
  return { ...plain, endpoint: { ...plain.endpoint, prompt_cache: { enabled: false, ttl: '5m' } } };
}

describe('Anthropic request', () => {
  it('folds system and notes into `system` and merges consecutive same-role messages', () => {
    const body = buildAnthropicRequest(uncached(CONVERSATION));
    expect(body.system).toBe('Be brief.\n\nTwo steps left.');
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Read two files.' }] },
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'a', name: 'fs_read', input: { path: 'x' } },
          { type: 'tool_use', id: 'b', name: 'fs_read', input: { path: 'y' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'a', content: 'X' },
          { type: 'tool_result', tool_use_id: 'b', content: '["Y"]' },
          { type: 'text', text: 'And?' },
          { type: 'text', text: 'Hurry.' },
        ],
      },
    ]);
    expect(AnthropicRequestSchema.safeParse(body).success).toBe(true);
  });

  it.each([
    ['auto', 'auto'],
    ['required', 'any'],
    ['none', 'none'],
  ] as const)('maps tool choice %s to %s', (choice, wire) => {
    const body = buildAnthropicRequest(call({ ...CONVERSATION, toolChoice: choice }));
    expect(body.tool_choice).toEqual({ type: wire });
  });

  it('always sends max_tokens, and maps stop sequences', () => {
    const plain = buildAnthropicRequest(uncached({ messages: [{ role: 'user', text: 'hi' }] }));
    expect(plain).toEqual({
      model: 'm',
      max_tokens: 4096,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    });
    const tuned = buildAnthropicRequest(
      uncached(
        { messages: [{ role: 'user', text: 'hi' }] },
        { max_output_tokens: 50, stop: ['##'] },
        true,
      ),
    );
    expect(tuned).toMatchObject({ max_tokens: 50, stop_sequences: ['##'], stream: true });
  });

  it('drops an empty assistant text block, which the API rejects', () => {
    const body = buildAnthropicRequest(
      uncached({
        messages: [
          { role: 'user', text: 'hi' },
          { role: 'assistant', text: '', tool_calls: [] },
          { role: 'user', text: 'again' },
        ],
      }),
    );
    expect(body.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'hi' },
          { type: 'text', text: 'again' },
        ],
      },
    ]);
  });
});

describe('tool names on the wire', () => {
  it('maps the names a request offered back, and passes unknown names through', () => {
    const names = new ToolNames([{ name: 'subagent.run' }, { name: 'plain_name' }]);
    expect(names.fromWire('subagent_run')).toBe('subagent.run');
    expect(names.fromWire('plain_name')).toBe('plain_name');
    expect(names.fromWire('mystery_tool')).toBe('mystery_tool');
  });

  it('refuses two tools that would share a wire name', () => {
    let caught: unknown;
    try {
      new ToolNames([{ name: 'a.b' }, { name: 'a_b' }]);
    } catch (error) {
      caught = error;
    }
    expect(isArborError(caught, 'config')).toBe(true);
    expect((caught as Error).message).toBe(
      'Tools `a.b` and `a_b` both go to the model as `a_b`; rename one of them.',
    );
  });
});
