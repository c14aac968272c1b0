import type OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import type { DialectCall } from '../../src/intel/dialect.js';
import type { ModelRequest } from '../../src/intel/index.js';
import { buildOpenAiRequest } from '../../src/intel/openai-request.js';
import { ToolNames } from '../../src/intel/wire-names.js';
import type { Sampling } from '../../src/protocol/index.js';

// arbor keeps its own HTTP client; this file checks the request bodies it builds against the
// official SDK's published request types (`openai`, a dev dependency). The check is the
// compiler's: `npm run typecheck` covers `test/` (tsconfig.json), and the runtime cases below make
// vitest run the same bodies so the types are of values arbor really sends.

/** The body `buildOpenAiRequest` returns, in each variant of its output-cap field. */
type Body = ReturnType<typeof buildOpenAiRequest>;
/** An unstreamed body: the same, without the streaming fields (asserted absent below). */
type Unstreamed = Body extends unknown ? Omit<Body, 'stream' | 'stream_options'> : never;
/** A streamed body: `stream` is `true` (asserted below). */
type Streamed = Body extends unknown ? Omit<Body, 'stream'> & { stream: true } : never;

// The compile-time checks. An assignment fails `tsc` when a field arbor sends has a type the SDK
// does not take (a value outside its union, a message shape it does not know); assignability lets
// extra fields through, so the key checks below fail it on a field the SDK does not name at all.
const toSdkUnstreamed = (body: Unstreamed): OpenAI.ChatCompletionCreateParamsNonStreaming => body;
const toSdkStreamed = (body: Streamed): OpenAI.ChatCompletionCreateParamsStreaming => body;
const toSdkParams = (body: Unstreamed | Streamed): OpenAI.ChatCompletionCreateParams => body;

/** Every key of every variant of `T`. */
type KeysOf<T> = T extends unknown ? keyof T : never;
/** `true` when `T` has no key outside `Known`; else the stray keys, which `true` cannot be. */
type OnlyKnownKeys<T, Known> = [Exclude<KeysOf<T>, KeysOf<Known>>] extends [never]
  ? true
  : Exclude<KeysOf<T>, KeysOf<Known>>;

type Message = Body['messages'][number];
type Tool = NonNullable<Body['tools']>[number];
type ToolCall = NonNullable<Extract<Message, { role: 'assistant' }>['tool_calls']>[number];
const bodyKeysAreSdkKeys: OnlyKnownKeys<Body, OpenAI.ChatCompletionCreateParams> = true;
const messageKeysAreSdkKeys: OnlyKnownKeys<Message, OpenAI.ChatCompletionMessageParam> = true;
const toolKeysAreSdkKeys: OnlyKnownKeys<Tool, OpenAI.ChatCompletionFunctionTool> = true;
const functionKeysAreSdkKeys: OnlyKnownKeys<Tool['function'], OpenAI.FunctionDefinition> = true;
const callKeysAreSdkKeys: OnlyKnownKeys<ToolCall, OpenAI.ChatCompletionMessageFunctionToolCall> =
  true;

function isStreamed(body: Body): body is Streamed {
  return body.stream === true;
}

function isUnstreamed(body: Body): body is Unstreamed {
  return !('stream' in body) && !('stream_options' in body);
}

const REQUEST: ModelRequest = {
  system: 'Be brief.',
  messages: [
    { role: 'user', text: 'Read a file.' },
    { role: 'assistant', tool_calls: [{ id: 'a', name: 'fs.read', args: { path: 'x' } }] },
    { role: 'tool', id: 'a', name: 'fs.read', content: 'X', is_error: true },
    { role: 'note', text: 'One step left.' },
    { role: 'assistant', text: 'Done.', tool_calls: [] },
  ],
  tools: [{ name: 'fs.read', description: 'Read', input_schema: { type: 'object' } }],
  toolChoice: 'required',
};

const SAMPLING: Sampling = {
  temperature: 1,
  top_p: 1,
  max_output_tokens: 500,
  stop: ['END'],
  seed: 3,
  reasoning_effort: 'high',
};

function build(stream: boolean, url: string): Body {
  const call: DialectCall = {
    request: REQUEST,
    model: 'o3-mini',
    sampling: SAMPLING,
    stream,
    names: new ToolNames(REQUEST.tools),
    endpoint: { url, dialect: 'openai', headers: {} },
  };
  return buildOpenAiRequest(call);
}

describe('arbor chat request bodies and the openai SDK types', () => {
  it('names no field the SDK does not know (checked by the compiler)', () => {
    expect([
      bodyKeysAreSdkKeys,
      messageKeysAreSdkKeys,
      toolKeysAreSdkKeys,
      functionKeysAreSdkKeys,
      callKeysAreSdkKeys,
    ]).toEqual([true, true, true, true, true]);
  });

  it.each([
    ['OpenAI (max_completion_tokens)', 'https://api.openai.com/v1', 'max_completion_tokens'],
    ['another server (max_tokens)', 'http://127.0.0.1:8000/v1', 'max_tokens'],
  ])('an unstreamed body to %s is a ChatCompletionCreateParamsNonStreaming', (_, url, field) => {
    const body = build(false, url);
    if (!isUnstreamed(body)) throw new Error('an unstreamed body carries streaming fields');
    const params = toSdkUnstreamed(body);
    expect(params).toMatchObject({ model: 'o3-mini', reasoning_effort: 'high', [field]: 500 });
    expect(toSdkParams(body)).toBe(body);
  });

  it('a streamed body is a ChatCompletionCreateParamsStreaming asking for usage', () => {
    const body = build(true, 'https://api.openai.com/v1');
    if (!isStreamed(body)) throw new Error('a streamed body does not say `stream: true`');
    const params = toSdkStreamed(body);
    expect(params.stream).toBe(true);
    expect(params.stream_options).toEqual({ include_usage: true });
    expect(toSdkParams(body)).toBe(body);
  });
});
