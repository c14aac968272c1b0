import type { ResponsesResponse, ResponsesStreamEvent } from '../../intel/index.js';
import type { ResponsesExtras } from './responses-rules.js';
import { argsChunks, textChunks, type ScriptedAnswer } from './scripted-answer.js';

/**
 * The fake's answers in the Responses API's shapes: an unstreamed `response` object, and the
 * server-sent events of a streamed one, as OpenAI sends them.
 */

type Item = Record<string, unknown> & { type: string; id: string };
/** Events the client passes over but OpenAI sends, so the fake sends them too. */
type OtherEvent = Record<string, unknown> & {
  type:
    | 'response.content_part.added'
    | 'response.output_text.done'
    | 'response.function_call_arguments.done';
};

function messageItem(answer: ScriptedAnswer, status: string, text: string): Item {
  return {
    type: 'message',
    id: `msg_${answer.seq}`,
    status,
    role: 'assistant',
    content: status === 'completed' ? [{ type: 'output_text', text, annotations: [] }] : [],
  };
}

function callItem(answer: ScriptedAnswer, extras: ResponsesExtras, index: number, args: string) {
  const call = answer.toolCalls[index];
  return {
    type: 'function_call',
    id: extras.callItemIds[index] ?? `fc_${answer.seq}_${index}`,
    status: args === '' ? 'in_progress' : 'completed',
    call_id: call?.id ?? '',
    name: call?.name ?? '',
    arguments: args,
  };
}

/** The output items, in the order a reasoning model writes them: reasoning, message, calls. */
function outputItems(answer: ScriptedAnswer, extras: ResponsesExtras): Item[] {
  return [
    ...(extras.reasoning === undefined ? [] : [extras.reasoning]),
    ...(answer.text === '' ? [] : [messageItem(answer, 'completed', answer.text)]),
    ...answer.toolCalls.map((call, index) =>
      callItem(answer, extras, index, JSON.stringify(call.args)),
    ),
  ];
}

function usageOf(answer: ScriptedAnswer, extras: ResponsesExtras) {
  const input = answer.usage.input_tokens;
  const output = answer.usage.output_tokens + extras.reasoningTokens;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: extras.cachedTokens },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: extras.reasoningTokens },
    total_tokens: input + output,
  };
}

function responseObject(
  answer: ScriptedAnswer,
  extras: ResponsesExtras,
  status: 'in_progress' | 'completed',
  output: Item[],
): ResponsesResponse {
  return {
    id: `resp_${answer.seq}`,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status,
    model: answer.model,
    output,
    incomplete_details: null,
    error: null,
    usage: status === 'completed' ? usageOf(answer, extras) : null,
  };
}

/** An unstreamed response. */
export function responsesBody(answer: ScriptedAnswer, extras: ResponsesExtras): ResponsesResponse {
  return responseObject(answer, extras, 'completed', outputItems(answer, extras));
}

/**
 * The events of a streamed response: `response.created`, `response.in_progress`, each output item
 * added, extended (`response.output_text.delta` a word at a time, the arguments in two
 * `response.function_call_arguments.delta` pieces) and done, then `response.completed` with the
 * whole response and its usage. Each is `event: TYPE` with its JSON, numbered in `sequence_number`.
 */
export function responsesStreamEvents(answer: ScriptedAnswer, extras: ResponsesExtras): string[] {
  const events: (ResponsesStreamEvent | OtherEvent)[] = [
    { type: 'response.created', response: responseObject(answer, extras, 'in_progress', []) },
    { type: 'response.in_progress', response: responseObject(answer, extras, 'in_progress', []) },
  ];
  let index = 0;
  if (extras.reasoning !== undefined) {
    const { encrypted_content: _sealed, ...announced } = extras.reasoning;
    events.push(
      { type: 'response.output_item.added', output_index: index, item: announced },
      { type: 'response.output_item.done', output_index: index, item: extras.reasoning },
    );
    index += 1;
  }
  if (answer.text !== '') {
    const itemId = `msg_${answer.seq}`;
    const part = { content_index: 0, item_id: itemId, output_index: index };
    events.push(
      {
        type: 'response.output_item.added',
        output_index: index,
        item: messageItem(answer, 'in_progress', ''),
      },
      { type: 'response.content_part.added', ...part, part: { type: 'output_text', text: '' } },
    );
    for (const piece of textChunks(answer.text, answer.chunkChars)) {
      events.push({ type: 'response.output_text.delta', ...part, delta: piece });
    }
    events.push(
      { type: 'response.output_text.done', ...part, text: answer.text },
      {
        type: 'response.output_item.done',
        output_index: index,
        item: messageItem(answer, 'completed', answer.text),
      },
    );
    index += 1;
  }
  answer.toolCalls.forEach((call, ordinal) => {
    const args = JSON.stringify(call.args);
    const itemId = extras.callItemIds[ordinal] ?? '';
    events.push({
      type: 'response.output_item.added',
      output_index: index,
      item: callItem(answer, extras, ordinal, ''),
    });
    for (const piece of argsChunks(call.args)) {
      events.push({
        type: 'response.function_call_arguments.delta',
        item_id: itemId,
        output_index: index,
        delta: piece,
      });
    }
    events.push(
      {
        type: 'response.function_call_arguments.done',
        item_id: itemId,
        output_index: index,
        arguments: args,
      },
      {
        type: 'response.output_item.done',
        output_index: index,
        item: callItem(answer, extras, ordinal, args),
      },
    );
    index += 1;
  });
  events.push({ type: 'response.completed', response: responsesBody(answer, extras) });
  return events.map(
    (event, sequence) =>
      `event: ${event.type}\ndata: ${JSON.stringify({ ...event, sequence_number: sequence })}\n\n`,
  );
}
