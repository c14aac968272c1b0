import type { AnthropicErrorBody, AnthropicResponse } from '../../intel/index.js';
import type { AnthropicExtras } from './anthropic-rules.js';
import { argsChunks, textChunks, type ScriptedAnswer } from './scripted-answer.js';

function stopReason(answer: ScriptedAnswer): string {
  return answer.toolCalls.length > 0 ? 'tool_use' : 'end_turn';
}

const NO_CACHE: AnthropicExtras['cache'] = { read: 0, write5m: 0, write1h: 0 };

/**
 * Usage as Anthropic reports it: `input_tokens` is only the uncached part of the input, cache
 * writes (by lifetime) and reads counted beside it.
 */
function usageOf(answer: ScriptedAnswer, extras: AnthropicExtras | undefined) {
  const { read, write5m, write1h } = extras?.cache ?? NO_CACHE;
  const writes = write5m + write1h;
  return {
    input_tokens: Math.max(0, answer.usage.input_tokens - read - writes),
    cache_creation_input_tokens: writes,
    cache_read_input_tokens: read,
    cache_creation: { ephemeral_5m_input_tokens: write5m, ephemeral_1h_input_tokens: write1h },
    output_tokens: answer.usage.output_tokens,
  };
}

function contentBlocks(
  answer: ScriptedAnswer,
  extras: AnthropicExtras | undefined,
): AnthropicResponse['content'] {
  return [
    ...(extras?.thinking === undefined ? [] : [extras.thinking]),
    ...(answer.text === '' ? [] : [{ type: 'text' as const, text: answer.text }]),
    ...answer.toolCalls.map((call) => ({
      type: 'tool_use' as const,
      id: call.id,
      name: call.name,
      input: call.args,
    })),
  ];
}

/** An unstreamed message; `extras` opens it with thinking and adds the cache's usage. */
export function anthropicMessage(
  answer: ScriptedAnswer,
  extras?: AnthropicExtras,
): AnthropicResponse {
  return {
    id: `msg_${answer.seq}`,
    type: 'message',
    role: 'assistant',
    model: answer.model,
    content: contentBlocks(answer, extras),
    stop_reason: stopReason(answer),
    stop_sequence: null,
    usage: usageOf(answer, extras),
  };
}

function event(type: string, data: Record<string, unknown>): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
}

/**
 * The events of a streamed message, as Anthropic sends them: `message_start` (with input usage),
 * a `ping`, each content block opened, extended (`thinking_delta` then `signature_delta`,
 * `text_delta`, `input_json_delta`) and closed, `message_delta` (stop reason, output usage),
 * `message_stop`. A redacted thinking block opens whole.
 */
export function anthropicStreamEvents(answer: ScriptedAnswer, extras?: AnthropicExtras): string[] {
  const usage = usageOf(answer, extras);
  const events = [
    event('message_start', {
      message: {
        ...anthropicMessage(answer, extras),
        content: [],
        stop_reason: null,
        usage: { ...usage, output_tokens: 1 },
      },
    }),
    event('ping', {}),
  ];
  let index = 0;
  const thinking = extras?.thinking;
  if (thinking !== undefined) {
    events.push(...thinkingEvents(thinking, answer.chunkChars));
    index += 1;
  }
  if (answer.text !== '') {
    events.push(event('content_block_start', { index, content_block: { type: 'text', text: '' } }));
    for (const piece of textChunks(answer.text, answer.chunkChars)) {
      events.push(
        event('content_block_delta', { index, delta: { type: 'text_delta', text: piece } }),
      );
    }
    events.push(event('content_block_stop', { index }));
    index += 1;
  }
  for (const call of answer.toolCalls) {
    events.push(
      event('content_block_start', {
        index,
        content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} },
      }),
    );
    for (const piece of argsChunks(call.args)) {
      events.push(
        event('content_block_delta', {
          index,
          delta: { type: 'input_json_delta', partial_json: piece },
        }),
      );
    }
    events.push(event('content_block_stop', { index }));
    index += 1;
  }
  events.push(
    event('message_delta', {
      delta: { stop_reason: stopReason(answer), stop_sequence: null },
      usage: { output_tokens: usage.output_tokens },
    }),
    event('message_stop', {}),
  );
  return events;
}

/** The events of the thinking block that opens a streamed answer (content block 0). */
function thinkingEvents(
  block: NonNullable<AnthropicExtras['thinking']>,
  chunkChars?: number,
): string[] {
  const index = 0;
  if (block.type === 'redacted_thinking') {
    return [
      event('content_block_start', { index, content_block: block }),
      event('content_block_stop', { index }),
    ];
  }
  return [
    event('content_block_start', {
      index,
      content_block: { type: 'thinking', thinking: '' },
    }),
    ...textChunks(block.thinking, chunkChars).map((piece) =>
      event('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: piece } }),
    ),
    event('content_block_delta', {
      index,
      delta: { type: 'signature_delta', signature: block.signature },
    }),
    event('content_block_stop', { index }),
  ];
}

const ERROR_TYPES: Readonly<Record<number, string>> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  529: 'overloaded_error',
};

/** An error body in Anthropic's shape. */
export function anthropicError(status: number, message: string): AnthropicErrorBody {
  const type = ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
  return { type: 'error', error: { type, message } };
}
