import { AttemptFailure } from './attempt-failure.js';
import { decodeJson } from './decode-json.js';
import { notTheShape, type DecodedResponse, type StreamDecoder } from './dialect.js';
import type { ModelDelta } from './model.js';
import { decodeOpenAiUsage, openAiFinishReason } from './openai-response.js';
import { OpenAiChunkSchema } from './openai-wire.js';
import type { SseEvent } from './sse-events.js';
import { toolCallFromText } from './tool-call-args.js';
import type { ToolNames } from './wire-names.js';

interface PartialCall {
  id: string;
  name: string;
  args: string;
}

/**
 * Decodes a streamed chat completion: `data:` chunks with `choices[0].delta`, tool-call pieces
 * keyed by their `index`, usage in a last chunk (asked for with `stream_options.include_usage`;
 * cached and reasoning tokens split out as in an unstreamed answer), then `data: [DONE]`.
 */
export class OpenAiStreamDecoder implements StreamDecoder {
  readonly #names: ToolNames;
  readonly #calls = new Map<number, PartialCall>();
  #text = '';
  #finishReason: string | undefined;
  #usage: DecodedResponse['usage'];
  #model: string | undefined;
  #isDone = false;

  constructor(names: ToolNames) {
    this.#names = names;
  }

  /** Complete on `[DONE]`, or (for servers that never send it) once a finish reason came. */
  get isComplete(): boolean {
    return this.#isDone || this.#finishReason !== undefined;
  }

  push(event: SseEvent): ModelDelta[] {
    if (this.#isDone) return [];
    if (event.data.trim() === '[DONE]') {
      this.#isDone = true;
      return [];
    }
    const decoded = decodeJson(event.data);
    if (!decoded.ok)
      throw new AttemptFailure('bad_response', `a stream event is ${decoded.reason}`);
    const parsed = OpenAiChunkSchema.safeParse(decoded.value, { reportInput: true });
    if (!parsed.success) throw notTheShape('an OpenAI chat completion chunk', parsed.error);
    const chunk = parsed.data;
    if (chunk.error !== undefined) {
      throw new AttemptFailure('stream_error', 'the endpoint reported an error inside the stream');
    }
    this.#model ??= chunk.model;
    this.#usage = decodeOpenAiUsage(chunk.usage) ?? this.#usage;
    const deltas: ModelDelta[] = [];
    const choice = chunk.choices.find((c) => (c.index ?? 0) === 0);
    if (choice === undefined) return deltas;
    const content = choice.delta?.content;
    if (content !== undefined && content !== null && content !== '') {
      this.#text += content;
      deltas.push({ type: 'text', text: content });
    }
    for (const piece of choice.delta?.tool_calls ?? []) {
      deltas.push(this.#addCallPiece(piece.index, piece.id, piece.function));
    }
    if (choice.finish_reason !== null && choice.finish_reason !== undefined) {
      this.#finishReason = choice.finish_reason;
    }
    return deltas;
  }

  #addCallPiece(
    index: number,
    id: string | undefined,
    fn: { name?: string | undefined; arguments?: string | undefined } | undefined,
  ): ModelDelta {
    const call = this.#calls.get(index) ?? { id: '', name: '', args: '' };
    this.#calls.set(index, call);
    if (id !== undefined && id !== '' && call.id === '') call.id = id;
    // The name comes whole in the first piece; servers that repeat it must not double it.
    const name = fn?.name;
    if (name !== undefined && name !== '' && call.name === '') call.name = name;
    const argsDelta = fn?.arguments ?? '';
    call.args += argsDelta;
    return {
      type: 'tool_call',
      index,
      ...(id === undefined || id === '' ? {} : { id }),
      ...(name === undefined || name === '' ? {} : { name: this.#names.fromWire(name) }),
      argsDelta,
    };
  }

  finish(): DecodedResponse {
    const calls = [...this.#calls.entries()].sort(([a], [b]) => a - b);
    const nameless = calls.find(([, call]) => call.name === '');
    if (nameless !== undefined) {
      throw new AttemptFailure('bad_response', `streamed tool call ${nameless[0]} has no name`);
    }
    return {
      text: this.#text,
      toolCalls: calls.map(([index, call]) =>
        toolCallFromText(call.id || `call_${index}`, this.#names.fromWire(call.name), call.args),
      ),
      finishReason: openAiFinishReason(this.#finishReason),
      usage: this.#usage,
      model: this.#model,
    };
  }
}
