import { AttemptFailure } from './attempt-failure.js';
import type { DecodedResponse, StreamDecoder } from './dialect.js';
import type { ModelDelta } from './model.js';
import { SseSplitter } from './sse-events.js';

/** A streamed answer being read: deltas batch by batch, then the whole answer. */
export interface AnswerStream {
  /** The next deltas; an empty batch means the answer is complete. Throws `AttemptFailure`. */
  read(): Promise<ModelDelta[]>;
  finish(): DecodedResponse;
}

/** Reads a `text/event-stream` body through a dialect's stream decoder. */
export class SseAnswerStream implements AnswerStream {
  readonly #chunks: AsyncIterator<Uint8Array>;
  readonly #splitter = new SseSplitter();
  readonly #decoder: StreamDecoder;
  readonly #onChunk: () => void;
  #isEnded = false;

  /** `onChunk` runs for every chunk that arrives (the attempt's silence timer is reset there). */
  constructor(body: AsyncIterable<Uint8Array>, decoder: StreamDecoder, onChunk: () => void) {
    this.#chunks = body[Symbol.asyncIterator]();
    this.#decoder = decoder;
    this.#onChunk = onChunk;
  }

  async read(): Promise<ModelDelta[]> {
    while (!this.#isEnded) {
      const next = await this.#chunks.next();
      const done = next.done === true;
      if (!done) this.#onChunk();
      const events = done ? this.#splitter.end() : this.#splitter.feed(next.value);
      const deltas = events.flatMap((event) => this.#decoder.push(event));
      if (done) {
        this.#isEnded = true;
        if (!this.#decoder.isComplete) {
          throw new AttemptFailure('connection', 'the stream ended before the answer was complete');
        }
      }
      if (deltas.length > 0) return deltas;
    }
    return [];
  }

  finish(): DecodedResponse {
    return this.#decoder.finish();
  }
}

/**
 * An answer that arrived whole although a stream was asked for (some servers ignore `stream`):
 * replayed as one batch of deltas, so the caller sees the same sequence either way.
 */
export class WholeAnswerStream implements AnswerStream {
  readonly #answer: DecodedResponse;
  #isRead = false;

  constructor(answer: DecodedResponse) {
    this.#answer = answer;
  }

  read(): Promise<ModelDelta[]> {
    if (this.#isRead) return Promise.resolve([]);
    this.#isRead = true;
    const deltas: ModelDelta[] = [];
    if (this.#answer.text !== '') deltas.push({ type: 'text', text: this.#answer.text });
    this.#answer.toolCalls.forEach((call, index) => {
      deltas.push({
        type: 'tool_call',
        index,
        id: call.id,
        name: call.name,
        argsDelta: JSON.stringify(call.args),
      });
    });
    return Promise.resolve(deltas);
  }

  finish(): DecodedResponse {
    return this.#answer;
  }
}
