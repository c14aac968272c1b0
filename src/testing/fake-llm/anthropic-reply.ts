import type { AnthropicErrorBody, AnthropicResponse } from '../../intel/index.js';
import { argsChunks, textChunks, type ScriptedAnswer } from './scripted-answer.js';

function stopReason(answer: ScriptedAnswer): string {
  return answer.toolCalls.length > 0 ? 'tool_use' : 'end_turn';
}

function contentBlocks(answer: ScriptedAnswer): AnthropicResponse['content'] {
  return [
    ...(answer.text === '' ? [] : [{ type: 'text' as const, text: answer.text }]),
    ...answer.toolCalls.map((call) => ({
      type: 'tool_use' as const,
      id: call.id,
      name: call.name,
      input: call.args,
    })),
  ];
}

/** An unstreamed message. */
export function anthropicMessage(answer: ScriptedAnswer): AnthropicResponse {
  return {
    id: `msg_${answer.seq}`,
    type: 'message',
    role: 'assistant',
    model: answer.model,
    content: contentBlocks(answer),
    stop_reason: stopReason(answer),
    stop_sequence: null,
    usage: { ...answer.usage },
  };
}

function event(type: string, data: Record<string, unknown>): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
}

/**
 * The events of a streamed message, as Anthropic sends them: `message_start` (with input usage),
 * a `ping`, each content block opened, extended (`text_delta`, `input_json_delta`) and closed,
 * `message_delta` (stop reason, output usage), `message_stop`.
 */
export function anthropicStreamEvents(answer: ScriptedAnswer): string[] {
  const events = [
    event('message_start', {
      message: {
        ...anthropicMessage(answer),
        content: [],
        stop_reason: null,
        usage: { input_tokens: answer.usage.input_tokens, output_tokens: 1 },
      },
    }),
    event('ping', {}),
  ];
  let index = 0;
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
      usage: { output_tokens: answer.usage.output_tokens },
    }),
    event('message_stop', {}),
  );
  return events;
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
