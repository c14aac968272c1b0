import type { SecretScrubber, StreamScrubber } from '../../protocol/index.js';

/** A piece of a node's answer as watchers get it. */
export interface TextDelta {
  step: number;
  text: string;
}

/**
 * A node's streamed answer (`text.delta`) on its way to watchers, scrubbed as it streams: each
 * model step's text goes through one `StreamScrubber`, so a key the model spells out over several
 * deltas never shows in any of them. What the scrubber holds back goes out with the next delta, or
 * when the step's text has ended: `end` is called before any other event of the node (the step's
 * `model.call`, the next `loop.step`, a turn, the node's end), and drops the held text instead
 * when the stream was abandoned (`text.reset`).
 */
export class NodeDeltas {
  readonly #scrub: SecretScrubber;
  readonly #emit: (delta: TextDelta) => void;
  #stream: StreamScrubber | undefined;
  #step = 0;

  constructor(scrub: SecretScrubber, emit: (delta: TextDelta) => void) {
    this.#scrub = scrub;
    this.#emit = emit;
  }

  /** A `text.delta` from the child; fields it should not have are not passed on. */
  push(fields: Record<string, unknown>): void {
    const { step, text } = fields;
    if (typeof text !== 'string' || typeof step !== 'number') return;
    if (step !== this.#step) this.end(false);
    this.#step = step;
    this.#stream ??= this.#scrub.stream();
    this.#send(this.#stream.push(text));
  }

  /** The step's text has ended: what is held goes out (or is dropped, when `abandoned`). */
  end(abandoned: boolean): void {
    const stream = this.#stream;
    if (stream === undefined) return;
    this.#stream = undefined;
    if (abandoned) stream.discard();
    else this.#send(stream.flush());
  }

  #send(text: string): void {
    if (text !== '') this.#emit({ step: this.#step, text });
  }
}
