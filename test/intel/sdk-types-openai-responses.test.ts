import type OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import type { DialectCall } from '../../src/intel/dialect.js';
import type { ModelRequest } from '../../src/intel/model.js';
import { buildResponsesRequest } from '../../src/intel/responses-request.js';
import { ToolNames } from '../../src/intel/wire-names.js';
import type { Sampling } from '../../src/protocol/index.js';

/**
 * arbor writes Responses API requests with its own client; this file checks them against the
 * official SDK's published types (`openai`, a dev dependency only). It type-checks with the rest
 * of the tests (`tsc --noEmit -p .`): a field arbor sends that the API does not define, or of the
 * wrong type, fails the build. The run checks the values are the ones the types were checked for.
 */

const REQUEST: ModelRequest = {
  system: 'You are terse.',
  messages: [
    { role: 'user', text: 'List it.' },
    {
      role: 'assistant',
      text: 'Looking.',
      tool_calls: [{ id: 'call_1', name: 'fs.list', args: { path: '.' } }],
      reasoning: {
        dialect: 'openai-responses',
        model: 'o4-mini',
        blocks: [{ type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'gAAAA' }],
      },
    },
    { role: 'tool', id: 'call_1', name: 'fs.list', content: 'a.txt', is_error: true },
    { role: 'note', text: 'Half the budget is spent.' },
  ],
  tools: [{ name: 'fs.list', description: 'List.', input_schema: { type: 'object' } }],
  toolChoice: 'required',
};

const SAMPLING: Sampling = {
  temperature: 1,
  top_p: 0.5,
  max_output_tokens: 256,
  reasoning_effort: 'xhigh',
};

type Body = ReturnType<typeof buildResponsesRequest>;
type SdkItem = OpenAI.Responses.ResponseInputItem;

/**
 * The keys of `T` its SDK type does not define. An object with more keys than its type still
 * assigns in TypeScript, so the assignments below alone would let an unknown field through.
 */
type Unknown<T, Target> = Exclude<keyof T, keyof Target>;
/** The same for each kind of input item, against the SDK's item of that `type`. */
type UnknownInItem<I> = I extends { type: infer K }
  ? Unknown<I, Extract<SdkItem, { type?: K }>>
  : never;

/** `true` only when arbor sends no field, item field or tool field the API does not define. */
const SENDS_ONLY_KNOWN_FIELDS: [
  Unknown<Body, OpenAI.Responses.ResponseCreateParams>,
  UnknownInItem<Body['input'][number]>,
  Unknown<NonNullable<Body['tools']>[number], OpenAI.Responses.FunctionTool>,
] extends [never, never, never]
  ? true
  : false = true;

function build(stream: boolean) {
  const call: DialectCall = {
    request: REQUEST,
    model: 'o4-mini',
    sampling: SAMPLING,
    stream,
    names: new ToolNames(REQUEST.tools),
    endpoint: { url: 'https://api.openai.com/v1', dialect: 'openai-responses', headers: {} },
  };
  return buildResponsesRequest(call);
}

describe("arbor's Responses API requests against the openai SDK's types", () => {
  it('an unstreamed request is a ResponseCreateParamsNonStreaming', () => {
    const { stream, ...body } = build(false);
    expect(stream).toBeUndefined();
    const params: OpenAI.Responses.ResponseCreateParamsNonStreaming = body;
    const any: OpenAI.Responses.ResponseCreateParams = params;
    // Every kind of input item and option was present when the types were checked.
    expect(body.input.map((item) => item.type)).toEqual([
      'message',
      'reasoning',
      'message',
      'function_call',
      'function_call_output',
      'message',
    ]);
    expect(Object.keys(any).sort()).toEqual([
      'include',
      'input',
      'instructions',
      'max_output_tokens',
      'model',
      'reasoning',
      'store',
      'temperature',
      'tool_choice',
      'tools',
      'top_p',
    ]);
  });

  it('sends only fields the API defines (checked by the types; the value says the check ran)', () => {
    expect(SENDS_ONLY_KNOWN_FIELDS).toBe(true);
  });

  it('a streamed request is a ResponseCreateParamsStreaming', () => {
    const body = build(true);
    if (body.stream !== true) throw new Error('expected `stream: true`');
    const params: OpenAI.Responses.ResponseCreateParamsStreaming = { ...body, stream: body.stream };
    const any: OpenAI.Responses.ResponseCreateParams = params;
    expect(any.stream).toBe(true);
    expect(any.store).toBe(false);
  });
});
