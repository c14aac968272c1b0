import { AttemptFailure } from './attempt-failure.js';
import { notTheShape, type DecodedResponse, type DecodedUsage } from './dialect.js';
import type { FinishReason, ModelToolCall } from './model.js';
import { reasoningTrace, replayableReasoning } from './responses-reasoning.js';
import {
  FunctionCallItemSchema,
  OutputMessageSchema,
  ResponsesResponseSchema,
  type ResponsesResponse,
  type ResponsesUsage,
} from './responses-wire.js';
import { toolCallFromText } from './tool-call-args.js';
import type { ToolNames } from './wire-names.js';

export const RESPONSES_RESPONSE_NAME = 'an OpenAI response';

/** Why a response stopped, from its `status` and `incomplete_details.reason`. */
export function responsesFinishReason(
  status: string | undefined,
  incompleteReason: string | undefined,
  hasCalls: boolean,
): FinishReason {
  if (status === 'incomplete') {
    if (incompleteReason === 'max_output_tokens') return 'length';
    if (incompleteReason === 'content_filter') return 'content_filter';
    return 'other';
  }
  if (status === 'completed') return hasCalls ? 'tool_calls' : 'stop';
  return 'other';
}

/**
 * The usage as arbor counts it: `input_tokens` is the whole input (cached included), the cached
 * part split out as cache reads; reasoning tokens are part of `output_tokens`, split out beside it.
 */
export function responsesUsage(usage: ResponsesUsage | null | undefined): DecodedUsage | undefined {
  if (usage === null || usage === undefined) return undefined;
  const cached = usage.input_tokens_details?.cached_tokens;
  const written = usage.input_tokens_details?.cache_write_tokens;
  const reasoning = usage.output_tokens_details?.reasoning_tokens;
  return {
    input_tokens: usage.input_tokens,
    output_tokens: usage.output_tokens,
    ...(cached === undefined ? {} : { cache_read_tokens: cached }),
    ...(written === undefined || written === 0 ? {} : { cache_write_tokens: written }),
    ...(reasoning === undefined ? {} : { reasoning_tokens: reasoning }),
  };
}

/** The failure of a response whose `status` is `failed` (the server gave up on it). */
export function failedResponse(
  error: { code?: string | null | undefined; message: string } | null | undefined,
): AttemptFailure {
  const what = error === null || error === undefined ? 'no reason given' : error.message;
  const code = error?.code === null || error?.code === undefined ? '' : ` (${error.code})`;
  return new AttemptFailure(
    'stream_error',
    `the endpoint reported the response failed${code}: ${what}`,
  );
}

/** The text, tool calls and replayable reasoning of a response's `output` items, in order. */
export function readOutput(
  output: readonly unknown[],
  names: ToolNames,
): { text: string; toolCalls: ModelToolCall[]; reasoning: unknown[] } {
  let text = '';
  const toolCalls: ModelToolCall[] = [];
  const reasoning: unknown[] = [];
  output.forEach((item, index) => {
    const type = (item as { type?: unknown }).type;
    if (type === 'message') {
      const message = OutputMessageSchema.safeParse(item, { reportInput: true });
      if (!message.success) throw notTheShape(`output item ${index} (a message)`, message.error);
      for (const part of message.data.content) {
        if (part.type === 'output_text' && part.text !== undefined) text += part.text;
      }
    } else if (type === 'function_call') {
      const call = FunctionCallItemSchema.safeParse(item, { reportInput: true });
      if (!call.success) throw notTheShape(`output item ${index} (a function_call)`, call.error);
      const { call_id, name, arguments: args } = call.data;
      toolCalls.push(toolCallFromText(call_id, names.fromWire(name), args));
    } else if (type === 'reasoning') {
      const kept = replayableReasoning(item);
      if (kept !== undefined) reasoning.push(kept);
    }
  });
  return { text, toolCalls, reasoning };
}

/**
 * The whole answer of a finished response. `output` is the response's `output` as decoded from
 * the server's JSON, not as the schema copied it: reasoning items are kept exactly as they came.
 */
function decodeFinishedResponse(
  response: ResponsesResponse,
  output: readonly unknown[],
  names: ToolNames,
): DecodedResponse {
  if (response.status === 'failed') throw failedResponse(response.error);
  const { text, toolCalls, reasoning } = readOutput(output, names);
  const trace = reasoningTrace(reasoning, response.model);
  return {
    text,
    toolCalls,
    finishReason: responsesFinishReason(
      response.status,
      response.incomplete_details?.reason,
      toolCalls.length > 0,
    ),
    usage: responsesUsage(response.usage),
    model: response.model,
    ...(trace === undefined ? {} : { reasoning: trace }),
  };
}

/** Reads an unstreamed response of `POST /responses`. */
export function decodeResponsesResponse(body: unknown, names: ToolNames): DecodedResponse {
  const parsed = ResponsesResponseSchema.safeParse(body, { reportInput: true });
  if (!parsed.success) throw notTheShape(RESPONSES_RESPONSE_NAME, parsed.error);
  // The schema checked `output` is an array; its items are read as they came.
  return decodeFinishedResponse(parsed.data, (body as { output: unknown[] }).output, names);
}
