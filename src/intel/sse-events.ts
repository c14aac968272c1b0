import { createParser, type EventSourceParser } from 'eventsource-parser';
import { AttemptFailure } from './attempt-failure.js';

/** One server-sent event: its `event:` name, if any, and its `data:` text. */
export interface SseEvent {
  event: string | undefined;
  data: string;
}

/** The most text one event may buffer before the stream is judged broken. */
const MAX_EVENT_CHARS = 16 * 1024 * 1024;

/**
 * Splits the bytes of a `text/event-stream` body into events, chunk by chunk, with
 * eventsource-parser doing the line protocol (CRLF, multi-line data, comments, BOM).
 */
export class SseSplitter {
  readonly #text = new TextDecoder();
  readonly #parser: EventSourceParser;
  #events: SseEvent[] = [];
  #overflow = false;

  constructor() {
    this.#parser = createParser({
      maxBufferSize: MAX_EVENT_CHARS,
      onEvent: (message) => {
        this.#events.push({ event: message.event, data: message.data });
      },
      onError: (error) => {
        if (error.type === 'max-buffer-size-exceeded') this.#overflow = true;
      },
    });
  }

  /** The events completed by this chunk. */
  feed(chunk: Uint8Array): SseEvent[] {
    this.#parser.feed(this.#text.decode(chunk, { stream: true }));
    return this.#take();
  }

  /** The events left when the body ends: a last event without its blank line still counts. */
  end(): SseEvent[] {
    const rest = this.#text.decode();
    if (rest !== '') this.#parser.feed(rest);
    this.#parser.reset({ consume: true });
    return this.#take();
  }

  #take(): SseEvent[] {
    if (this.#overflow) {
      throw new AttemptFailure(
        'bad_response',
        `a stream event exceeded ${MAX_EVENT_CHARS} characters without ending`,
      );
    }
    const events = this.#events;
    this.#events = [];
    return events;
  }
}
