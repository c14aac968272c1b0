import type { Writable } from 'node:stream';
import { encodeFrame, toEventFrame, type AgentFrame, type ChildEvent } from '../protocol/index.js';
import { boundedEvent } from './bounded-event.js';

/**
 * Writes agent frames to the child's stdout, one line each, in call order. Writes never interleave
 * (each frame is one `write` of one string). After the supervisor closes the pipe, frames are
 * dropped: nobody is left to read them.
 */
export class FrameWriter {
  readonly #out: Writable;
  #closed = false;

  constructor(out: Writable) {
    this.#out = out;
    out.on('error', () => {
      this.#closed = true;
    });
  }

  get closed(): boolean {
    return this.#closed || this.#out.destroyed || this.#out.writableEnded;
  }

  send(frame: AgentFrame): void {
    if (this.closed) return;
    this.#out.write(encodeFrame(frame));
  }

  /** Reports a run event, kept within the bound the supervisor holds a child's events to. */
  event(event: ChildEvent): void {
    const { event: name, fields } = toEventFrame(event);
    for (const bounded of boundedEvent(name, fields))
      this.send({ type: 'event', event: name, fields: bounded });
  }

  /** Resolves once everything written so far has been handed to the OS. */
  flush(): Promise<void> {
    if (this.closed || this.#out.writableLength === 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.#out.write('', () => {
        resolve();
      });
    });
  }
}
