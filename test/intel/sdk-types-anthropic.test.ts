import type Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { buildAnthropicRequest } from '../../src/intel/anthropic-request.js';
import type { AnthropicSentRequest } from '../../src/intel/anthropic-wire.js';
import { ToolNames } from '../../src/intel/wire-names.js';
import type { TranscriptMessage } from '../../src/protocol/index.js';

/**
 * arbor's messages request, checked against the official SDK's published types: the body arbor
 * builds (prompt-cache breakpoints, extended thinking, thinking blocks sent back) must be a
 * `MessageCreateParams`. `tsc` checks the assignments below (tsconfig covers `test/`); vitest
 * runs the same file so the bodies are real ones.
 *
 * `Json<T>` is the JSON a value of `T` becomes: optional fields are absent rather than
 * `undefined`, and the catch-all index signatures of arbor's tolerant schemas (fields arbor never
 * writes) are dropped.
 */
type Json<T> = T extends readonly (infer U)[]
  ? Json<U>[]
  : T extends object
    ? { [K in keyof T as string extends K ? never : K]: Json<Exclude<T[K], undefined>> }
    : T;

/** A value as JSON: what goes on the wire. */
function asJson<T>(value: T): Json<T> {
  return JSON.parse(JSON.stringify(value)) as Json<T>;
}

type Sent = Json<AnthropicSentRequest>;
type SentOnce = Omit<Sent, 'stream'> & { stream?: false };
type SentStreamed = Omit<Sent, 'stream'> & { stream: true };

// The type-level checks: a body arbor writes is a body the SDK would write.
const asOnce = (body: SentOnce): Anthropic.MessageCreateParamsNonStreaming => body;
const asStreamed = (body: SentStreamed): Anthropic.MessageCreateParamsStreaming => body;
const asBlocks = (
  blocks: Json<AnthropicSentRequest['messages'][number]['content']>,
): Anthropic.ContentBlockParam[] => blocks;

const THINKING = { type: 'thinking', thinking: 'Read x.', signature: 'c2ln' };
const MESSAGES: TranscriptMessage[] = [
  { role: 'user', text: 'Read x.' },
  {
    role: 'assistant',
    text: 'Reading.',
    tool_calls: [{ id: 'a', name: 'fs.read', args: { path: 'x' } }],
    reasoning: {
      dialect: 'anthropic',
      model: 'claude-a',
      blocks: [THINKING, { type: 'redacted_thinking', data: 'ZGF0YQ==' }],
    },
  },
  { role: 'tool', id: 'a', name: 'fs.read', content: 'X', is_error: true },
];

function build(stream: boolean): AnthropicSentRequest {
  const tools = [{ name: 'fs.read', description: 'Read', input_schema: { type: 'object' } }];
  return buildAnthropicRequest({
    request: { system: 'Be brief.', messages: MESSAGES, tools },
    model: 'claude-a',
    sampling: { thinking_budget_tokens: 2048, stop: ['END'], top_p: 0.99 },
    stream,
    names: new ToolNames(tools),
    endpoint: {
      url: 'http://127.0.0.1:1/v1',
      dialect: 'anthropic',
      headers: {},
      prompt_cache: { enabled: true, ttl: '1h' },
    },
  });
}

describe('the Anthropic request against @anthropic-ai/sdk types', () => {
  it('is a MessageCreateParams, streamed or not, with breakpoints, thinking and its blocks', () => {
    const { stream: _none, ...once } = asJson(build(false));
    expect(_none).toBeUndefined();
    const typed = asOnce(once);
    expect(typed.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    const assistant = asJson(build(false)).messages[1];
    expect(asBlocks(assistant?.content ?? [])[0]).toEqual(THINKING);
    expect(JSON.stringify(typed)).toContain('"cache_control":{"type":"ephemeral","ttl":"1h"}');
    const { stream, ...streamed } = asJson(build(true));
    expect(stream).toBe(true);
    expect(asStreamed({ ...streamed, stream: true }).stream).toBe(true);
  });
});
