import type { Writable } from 'node:stream';
import { encodeFrame, type AgentFrame } from '../protocol/index.js';

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
