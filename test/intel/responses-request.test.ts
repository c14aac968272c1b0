import { describe, expect, it } from 'vitest';
import type { DialectCall } from '../../src/intel/dialect.js';
import type { ModelRequest } from '../../src/intel/model.js';
import { isSameModel } from '../../src/intel/responses-reasoning.js';
import {
  buildResponsesRequest,
  isOpenAiReasoningModel,
} from '../../src/intel/responses-request.js';
import { ToolNames } from '../../src/intel/wire-names.js';
import type { ReasoningTrace, Sampling } from '../../src/protocol/index.js';

function call(
  request: ModelRequest,
  model = 'o4-mini',
  sampling: Sampling = {},
  stream = false,
): DialectCall {
  return {
    request,
    model,
    sampling,
    stream,
    names: new ToolNames(request.tools),
    endpoint: { url: 'http://127.0.0.1:1/v1', dialect: 'openai-responses', headers: {} },
  };
}

const REASONING_ITEM = {
  id: 'rs_1',
  type: 'reasoning',
  summary: [],
  encrypted_content: 'gAAAAB-opaque+/=',
};

function trace(dialect: string, model: string): ReasoningTrace {
  return { dialect, model, blocks: [REASONING_ITEM] };
}

/** A tool-use turn: the user asks, the model thought and called a tool, the tool answered. */
function conversation(reasoning?: ReasoningTrace): ModelRequest {
  return {
    system: 'You are terse.',
    messages: [
      { role: 'user', text: 'List it.' },
      {
        role: 'assistant',
        text: 'Looking.',
        tool_calls: [{ id: 'call_1', name: 'fs.list', args: { path: '.' } }],
        ...(reasoning === undefined ? {} : { reasoning }),
      },
      { role: 'tool', id: 'call_1', name: 'fs.list', content: 'a.txt', is_error: false },
      { role: 'note', text: 'Budget: half spent.' },
    ],
    tools: [
      { name: 'fs.list', description: 'List a directory.', input_schema: { type: 'object' } },
    ],
  };
}

describe('Responses API requests', () => {
  it('are stateless: store false, the whole conversation as input items, the system prompt as instructions', () => {
    const body = buildResponsesRequest(
      call(conversation(), 'o4-mini', {
        max_output_tokens: 500,
        temperature: 0.5,
        top_p: 0.9,
        reasoning_effort: 'high',
        stop: ['END'],
        seed: 7,
      }),
    );
    expect(body).toEqual({
      model: 'o4-mini',
      instructions: 'You are terse.',
      input: [
        { type: 'message', role: 'user', content: 'List it.' },
        { type: 'message', role: 'assistant', content: 'Looking.' },
        { type: 'function_call', call_id: 'call_1', name: 'fs_list', arguments: '{"path":"."}' },
        { type: 'function_call_output', call_id: 'call_1', output: 'a.txt' },
        { type: 'message', role: 'developer', content: 'Budget: half spent.' },
      ],
      store: false,
      include: ['reasoning.encrypted_content'],
      tools: [
        {
          type: 'function',
          name: 'fs_list',
          description: 'List a directory.',
          parameters: { type: 'object' },
          strict: false,
        },
      ],
      tool_choice: 'auto',
      max_output_tokens: 500,
      temperature: 0.5,
      top_p: 0.9,
      reasoning: { effort: 'high' },
    });
  });

  it('say a failed tool result in its text, ask to stream, and pass the tool choice', () => {
    const request: ModelRequest = {
      messages: [
        { role: 'tool', id: 'call_9', name: 'fs.read', content: 'no such file', is_error: true },
      ],
      tools: [{ name: 'fs.read', description: '', input_schema: {} }],
      toolChoice: 'required',
    };
    const body = buildResponsesRequest(call(request, 'o3', {}, true));
    expect(body.input).toEqual([
      { type: 'function_call_output', call_id: 'call_9', output: 'Error: no such file' },
    ]);
    expect(body.tool_choice).toBe('required');
    expect(body.stream).toBe(true);
    expect(body).not.toHaveProperty('instructions');
  });

  it.each([
    ['o1', true],
    ['o3-mini', true],
    ['o4-mini-2025-04-16', true],
    ['gpt-5', true],
    ['gpt-5.1-codex', true],
    ['gpt-5-chat-latest', false],
    ['gpt-4o', false],
    ['gpt-4.1-mini', false],
  ])('ask for encrypted reasoning from %s: %s', (model, asks) => {
    expect(isOpenAiReasoningModel(model)).toBe(asks);
    const body = buildResponsesRequest(call({ messages: [] }, model));
    expect(body.store).toBe(false);
    // A model that does not reason refuses the include ("Encrypted content is not supported").
    expect(body.include).toEqual(asks ? ['reasoning.encrypted_content'] : undefined);
  });

  it('ask for encrypted reasoning from any model given a reasoning effort', () => {
    const body = buildResponsesRequest(
      call({ messages: [] }, 'my-proxy-model', { reasoning_effort: 'low' }),
    );
    expect(body.include).toEqual(['reasoning.encrypted_content']);
    expect(body.reasoning).toEqual({ effort: 'low' });
  });
});

describe('reasoning sent back', () => {
  it('goes before the function call it led to, verbatim, to the same dialect and model', () => {
    const recorded = trace('openai-responses', 'o4-mini');
    const body = buildResponsesRequest(call(conversation(recorded), 'o4-mini'));
    expect(body.input.slice(1, 4)).toEqual([
      REASONING_ITEM,
      { type: 'message', role: 'assistant', content: 'Looking.' },
      { type: 'function_call', call_id: 'call_1', name: 'fs_list', arguments: '{"path":"."}' },
    ]);
    // The very object recorded, not a copy that might have lost a field.
    expect(body.input[1]).toBe(REASONING_ITEM);
    // Building a request leaves the transcript's trace as it was.
    expect(recorded.blocks).toEqual([REASONING_ITEM]);
  });

  it('leaves out a recorded item the API would refuse (no encrypted content), keeping the rest', () => {
    const damaged = { id: 'rs_0', type: 'reasoning', summary: [] };
    const recorded: ReasoningTrace = {
      dialect: 'openai-responses',
      model: 'o4-mini',
      blocks: [damaged, REASONING_ITEM],
    };
    const body = buildResponsesRequest(call(conversation(recorded), 'o4-mini'));
    expect(body.input.filter((item) => item.type === 'reasoning')).toEqual([REASONING_ITEM]);
  });

  it('goes back to the alias of the dated snapshot that answered', () => {
    const body = buildResponsesRequest(
      call(conversation(trace('openai-responses', 'o4-mini-2025-04-16')), 'o4-mini'),
    );
    expect(body.input).toContainEqual(REASONING_ITEM);
  });

  it.each([
    ['another model (a failover, a degrade, a swap)', 'openai-responses', 'o3', 'o4-mini'],
    ['a model whose name only starts alike', 'openai-responses', 'gpt-5-mini', 'gpt-5'],
    ['the bigger model of a smaller one', 'openai-responses', 'gpt-5', 'gpt-5-mini'],
    ['another dialect', 'anthropic', 'o4-mini', 'o4-mini'],
  ])('is dropped after a move to %s', (_case, dialect, recorded, asked) => {
    const body = buildResponsesRequest(call(conversation(trace(dialect, recorded)), asked));
    expect(body.input.some((item) => item.type === 'reasoning')).toBe(false);
    // The tool call itself stays: only the reasoning is the old model's.
    expect(body.input).toContainEqual(
      expect.objectContaining({ type: 'function_call', call_id: 'call_1' }),
    );
  });

  it.each([
    ['o4-mini', 'o4-mini', true],
    ['o4-mini-2025-04-16', 'o4-mini', true],
    ['gpt-4-0613', 'gpt-4', true],
    ['o4-mini', 'o4-mini-2025-04-16', false],
    ['gpt-5-mini', 'gpt-5', false],
    ['gpt-5-2025-08-07-mini', 'gpt-5', false],
  ])('%s recorded counts as %s asked: %s', (recorded, asked, same) => {
    expect(isSameModel(recorded, asked)).toBe(same);
  });
});
