import { anthropicFinishReason, anthropicInputTokens } from './anthropic-response.js';
import { AnthropicStreamEventSchema, type AnthropicUsage } from './anthropic-wire.js';
import { AttemptFailure } from './attempt-failure.js';
import { decodeJson } from './decode-json.js';
import { notTheShape, type DecodedResponse, type StreamDecoder } from './dialect.js';
import type { ModelDelta, ModelToolCall } from './model.js';
import type { SseEvent } from './sse-events.js';
import { toolCallFromText } from './tool-call-args.js';
import type { ToolNames } from './wire-names.js';

const KNOWN_EVENTS = new Set<string>(
  AnthropicStreamEventSchema.options.map((o) => o.shape.type.value),
);

interface PartialCall {
  id: string;
  name: string;
  json: string;
}

/**
 * Decodes a streamed message: `message_start` (model, input usage), content blocks opened,
 * extended by `text_delta` / `input_json_delta` and closed, `message_delta` (stop reason,
 * cumulative output usage), `message_stop`. Event types it does not know are skipped, as the API
 * asks; an `error` event fails the call.
 */
export class AnthropicStreamDecoder implements StreamDecoder {
  readonly #names: ToolNames;
  /** Content block index → tool call ordinal. */
  readonly #callOfBlock = new Map<number, number>();
  readonly #calls: PartialCall[] = [];
  #text = '';
  #stopReason: string | undefined;
  #usage: AnthropicUsage = {};
  #model: string | undefined;
  #isDone = false;

  constructor(names: ToolNames) {
    this.#names = names;
  }

  get isComplete(): boolean {
    return this.#isDone;
  }

  push(event: SseEvent): ModelDelta[] {
    const decoded = decodeJson(event.data);
    if (!decoded.ok)
      throw new AttemptFailure('bad_response', `a stream event is ${decoded.reason}`);
    const type = (decoded.value as { type?: unknown } | null)?.type;
    if (typeof type === 'string' && !KNOWN_EVENTS.has(type)) return [];
    const parsed = AnthropicStreamEventSchema.safeParse(decoded.value, { reportInput: true });
    if (!parsed.success) throw notTheShape('an Anthropic stream event', parsed.error);
    const data = parsed.data;
    switch (data.type) {
      case 'message_start':
        this.#model = data.message.model;
        this.#usage = { ...this.#usage, ...data.message.usage };
        return [];
      case 'content_block_start':
        return this.#startBlock(data.index, data.content_block);
      case 'content_block_delta':
        return this.#extendBlock(data.index, data.delta);
      case 'message_delta':
        this.#stopReason = data.delta.stop_reason ?? this.#stopReason;
        this.#usage = { ...this.#usage, ...data.usage };
        return [];
      case 'message_stop':
        this.#isDone = true;
        return [];
      case 'error':
        throw new AttemptFailure(
          'stream_error',
          `the endpoint reported \`${data.error.type}\` inside the stream`,
        );
      case 'content_block_stop':
      case 'ping':
        return [];
    }
  }

  #startBlock(
    index: number,
    block: {
      type: string;
      id?: string | undefined;
      name?: string | undefined;
      text?: string | undefined;
    },
  ): ModelDelta[] {
    if (block.type === 'text' && block.text !== undefined && block.text !== '') {
      this.#text += block.text;
      return [{ type: 'text', text: block.text }];
    }
    if (block.type !== 'tool_use') return [];
    if (block.id === undefined || block.name === undefined) {
      throw new AttemptFailure('bad_response', `tool_use block ${index} has no id or name`);
    }
    const ordinal = this.#calls.length;
    this.#callOfBlock.set(index, ordinal);
    this.#calls.push({ id: block.id, name: block.name, json: '' });
    const name = this.#names.fromWire(block.name);
    return [{ type: 'tool_call', index: ordinal, id: block.id, name, argsDelta: '' }];
  }

  #extendBlock(
    index: number,
    delta: { type: string; text?: string | undefined; partial_json?: string | undefined },
  ): ModelDelta[] {
    if (delta.type === 'text_delta' && delta.text !== undefined && delta.text !== '') {
      this.#text += delta.text;
      return [{ type: 'text', text: delta.text }];
    }
    if (delta.type !== 'input_json_delta' || delta.partial_json === undefined) return [];
    const ordinal = this.#callOfBlock.get(index);
    const call = ordinal === undefined ? undefined : this.#calls[ordinal];
    if (ordinal === undefined || call === undefined) {
      throw new AttemptFailure(
        'bad_response',
        `input_json_delta for block ${index}, not a tool_use`,
      );
    }
    call.json += delta.partial_json;
    return [{ type: 'tool_call', index: ordinal, argsDelta: delta.partial_json }];
  }

  finish(): DecodedResponse {
    const toolCalls: ModelToolCall[] = this.#calls.map((call) =>
      toolCallFromText(call.id, this.#names.fromWire(call.name), call.json),
    );
    const usage = this.#usage;
    return {
      text: this.#text,
      toolCalls,
      finishReason: anthropicFinishReason(this.#stopReason),
      usage:
        usage.output_tokens === undefined
          ? undefined
          : { input_tokens: anthropicInputTokens(usage), output_tokens: usage.output_tokens },
      model: this.#model,
    };
  }
}
