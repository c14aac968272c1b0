import { anthropicFinishReason, anthropicReasoning, anthropicUsage } from './anthropic-response.js';
import { AnthropicStreamEventSchema, type AnthropicUsage } from './anthropic-wire.js';
import { AttemptFailure } from './attempt-failure.js';
import type { DecodedResponse, StreamDecoder } from './dialect.js';
import type { ModelDelta, ModelToolCall } from './model.js';
import type { SseEvent } from './sse-events.js';
import { typedStreamEvent } from './stream-event.js';
import { toolCallFromText } from './tool-call-args.js';
import type { ToolNames } from './wire-names.js';

interface PartialCall {
  id: string;
  name: string;
  json: string;
}

/** A thinking block being streamed: its opening fields, then its text and signature as they come. */
interface PartialThinking {
  block: Record<string, unknown>;
}

/**
 * Usage counts reported later win; a count sent as `null` or left out keeps the earlier one
 * (`message_delta` may repeat only the output count).
 */
function mergeUsage(into: AnthropicUsage, update: AnthropicUsage | undefined): AnthropicUsage {
  const out: Record<string, unknown> = { ...into };
  for (const [key, value] of Object.entries(update ?? {})) {
    if (value !== null && value !== undefined) out[key] = value;
  }
  return out;
}

/**
 * Decodes a streamed message: `message_start` (model, input usage), content blocks opened,
 * extended by `text_delta` / `input_json_delta` / `thinking_delta` / `signature_delta` and closed,
 * `message_delta` (stop reason, cumulative output usage), `message_stop`. Thinking and redacted
 * thinking blocks are put together whole and kept, in order, as the answer's reasoning; they
 * yield no delta (nothing shows them). Event types it does not know are skipped, as the API asks;
 * an `error` event fails the call.
 */
export class AnthropicStreamDecoder implements StreamDecoder {
  readonly #names: ToolNames;
  /** Content block index → tool call ordinal. */
  readonly #callOfBlock = new Map<number, number>();
  readonly #calls: PartialCall[] = [];
  /** Content block index → thinking block, in the order the blocks opened. */
  readonly #thinking = new Map<number, PartialThinking>();
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
    const data = typedStreamEvent(
      event,
      AnthropicStreamEventSchema,
      'an Anthropic stream event',
    )?.data;
    if (data === undefined) return [];
    switch (data.type) {
      case 'message_start':
        this.#model = data.message.model;
        this.#usage = mergeUsage(this.#usage, data.message.usage);
        return [];
      case 'content_block_start':
        return this.#startBlock(data.index, data.content_block);
      case 'content_block_delta':
        return this.#extendBlock(data.index, data.delta);
      case 'message_delta':
        this.#stopReason = data.delta.stop_reason ?? this.#stopReason;
        this.#usage = mergeUsage(this.#usage, data.usage);
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
    if (block.type === 'thinking' || block.type === 'redacted_thinking') {
      // Copied as it opened (a redacted block comes whole); thinking grows by its deltas.
      this.#thinking.set(index, { block: { ...block } });
      return [];
    }
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
    delta: {
      type: string;
      text?: string | undefined;
      partial_json?: string | undefined;
      thinking?: string | undefined;
      signature?: string | undefined;
    },
  ): ModelDelta[] {
    if (delta.type === 'thinking_delta' || delta.type === 'signature_delta') {
      this.#extendThinking(index, delta);
      return [];
    }
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

  #extendThinking(
    index: number,
    delta: { type: string; thinking?: string | undefined; signature?: string | undefined },
  ): void {
    const open = this.#thinking.get(index);
    if (open?.block.type !== 'thinking') {
      throw new AttemptFailure(
        'bad_response',
        `${delta.type} for block ${index}, not a thinking block`,
      );
    }
    const field = delta.type === 'thinking_delta' ? 'thinking' : 'signature';
    const piece = delta[field];
    if (piece === undefined) {
      throw new AttemptFailure(
        'bad_response',
        `${delta.type} for block ${index} has no \`${field}\``,
      );
    }
    const before = open.block[field];
    open.block[field] = (typeof before === 'string' ? before : '') + piece;
  }

  finish(): DecodedResponse {
    const toolCalls: ModelToolCall[] = this.#calls.map((call) =>
      toolCallFromText(call.id, this.#names.fromWire(call.name), call.json),
    );
    const blocks = [...this.#thinking.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, partial]) => partial.block);
    const reasoning = anthropicReasoning(blocks, this.#model);
    return {
      text: this.#text,
      toolCalls,
      finishReason: anthropicFinishReason(this.#stopReason),
      usage: anthropicUsage(this.#usage),
      model: this.#model,
      ...(reasoning === undefined ? {} : { reasoning }),
    };
  }
}
