import { AttemptFailure } from './attempt-failure.js';
import { notTheShape, type DecodedResponse, type StreamDecoder } from './dialect.js';
import type { ModelDelta } from './model.js';
import { reasoningTrace, replayableReasoning } from './responses-reasoning.js';
import {
  failedResponse,
  readOutput,
  responsesFinishReason,
  responsesUsage,
} from './responses-response.js';
import {
  FunctionCallItemSchema,
  ResponsesStreamEventSchema,
  type ResponsesResponse,
} from './responses-wire.js';
import type { SseEvent } from './sse-events.js';
import { typedStreamEvent } from './stream-event.js';
import { toolCallFromText } from './tool-call-args.js';
import type { ToolNames } from './wire-names.js';

interface PartialCall {
  /** The call's place among this answer's tool calls (the delta index). */
  ordinal: number;
  id: string;
  name: string;
  args: string;
}

/**
 * Decodes a streamed response: `response.created`, each output item added, extended
 * (`response.output_text.delta`, `response.function_call_arguments.delta`) and done, then
 * `response.completed` or `response.incomplete` with the status and usage. `response.failed` and
 * `error` fail the call; event types it does not know are skipped (new ones appear often).
 */
export class ResponsesStreamDecoder implements StreamDecoder {
  readonly #names: ToolNames;
  /** Output index → tool call. */
  readonly #calls = new Map<number, PartialCall>();
  /** Output index → replayable reasoning item, as it came. */
  readonly #reasoning = new Map<number, unknown>();
  #text = '';
  #model: string | undefined;
  #final: { response: ResponsesResponse; output: unknown[] } | undefined;

  constructor(names: ToolNames) {
    this.#names = names;
  }

  get isComplete(): boolean {
    return this.#final !== undefined;
  }

  push(event: SseEvent): ModelDelta[] {
    const read = typedStreamEvent(
      event,
      ResponsesStreamEventSchema,
      'an OpenAI response stream event',
    );
    if (read === undefined) return [];
    const { data, raw } = read;
    switch (data.type) {
      case 'response.created':
      case 'response.in_progress':
        this.#model ??= data.response.model;
        return [];
      case 'response.output_item.added':
        return this.#addItem(data.output_index, (raw as { item: unknown }).item);
      case 'response.output_text.delta':
        if (data.delta === '') return [];
        this.#text += data.delta;
        return [{ type: 'text', text: data.delta }];
      case 'response.function_call_arguments.delta':
        return this.#extendCall(data.output_index, data.delta);
      case 'response.output_item.done':
        return this.#finishItem(data.output_index, (raw as { item: unknown }).item);
      case 'response.completed':
      case 'response.incomplete':
        this.#final = {
          response: data.response,
          output: (raw as { response: { output: unknown[] } }).response.output,
        };
        return [];
      case 'response.failed':
        throw failedResponse(data.response.error);
      case 'error':
        throw new AttemptFailure(
          'stream_error',
          `the endpoint reported an error inside the stream${data.code === null || data.code === undefined ? '' : ` (${data.code})`}: ${data.message}`,
        );
    }
  }

  #addItem(index: number, item: unknown): ModelDelta[] {
    if ((item as { type?: unknown }).type !== 'function_call') return [];
    const call = this.#readCall(index, item);
    const ordinal = this.#calls.size;
    this.#calls.set(index, { ordinal, id: call.call_id, name: call.name, args: call.arguments });
    return [
      {
        type: 'tool_call',
        index: ordinal,
        id: call.call_id,
        name: this.#names.fromWire(call.name),
        argsDelta: call.arguments,
      },
    ];
  }

  #extendCall(index: number, delta: string): ModelDelta[] {
    const call = this.#calls.get(index);
    if (call === undefined) {
      throw new AttemptFailure(
        'bad_response',
        `function_call_arguments.delta for output item ${index}, not a function_call`,
      );
    }
    call.args += delta;
    return [{ type: 'tool_call', index: call.ordinal, argsDelta: delta }];
  }

  #finishItem(index: number, item: unknown): ModelDelta[] {
    const type = (item as { type?: unknown }).type;
    if (type === 'reasoning') {
      const kept = replayableReasoning(item);
      if (kept !== undefined) this.#reasoning.set(index, kept);
      return [];
    }
    if (type !== 'function_call') return [];
    const done = this.#readCall(index, item);
    const call = this.#calls.get(index);
    // A server that never announced the item: the whole call now.
    if (call === undefined) return this.#addItem(index, item);
    // The item's own arguments are the whole text; what the deltas missed is appended.
    if (done.arguments.startsWith(call.args) && done.arguments !== call.args) {
      const rest = done.arguments.slice(call.args.length);
      call.args = done.arguments;
      return [{ type: 'tool_call', index: call.ordinal, argsDelta: rest }];
    }
    return [];
  }

  #readCall(index: number, item: unknown) {
    const parsed = FunctionCallItemSchema.safeParse(item, { reportInput: true });
    if (!parsed.success) throw notTheShape(`output item ${index} (a function_call)`, parsed.error);
    return parsed.data;
  }

  finish(): DecodedResponse {
    const final = this.#final;
    const calls = [...this.#calls.values()].sort((a, b) => a.ordinal - b.ordinal);
    const toolCalls = calls.map((call) =>
      toolCallFromText(call.id, this.#names.fromWire(call.name), call.args),
    );
    // Reasoning as the items came done; a server that sent none of them may list them at the end.
    let reasoning = [...this.#reasoning.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, item]) => item);
    if (reasoning.length === 0 && final !== undefined) {
      reasoning = readOutput(final.output, this.#names).reasoning;
    }
    const model = final?.response.model ?? this.#model;
    const trace = reasoningTrace(reasoning, model);
    return {
      text: this.#text,
      toolCalls,
      finishReason: responsesFinishReason(
        final?.response.status,
        final?.response.incomplete_details?.reason,
        toolCalls.length > 0,
      ),
      usage: responsesUsage(final?.response.usage),
      model,
      ...(trace === undefined ? {} : { reasoning: trace }),
    };
  }
}
