import type { Outcome, SecretScrubber } from '../../protocol/index.js';
import { killPoint } from '../launch/kill-points.js';
import type { RunStore } from '../../store/store-port.js';
import { TranscriptParts } from './transcript-parts.js';
import { TranscriptRecord } from './transcript-record.js';

/**
 * One node's transcript on its way into the store: what the child sends (whole, or in pieces put
 * back together first) is checked, scrubbed and appended; never shown, since it is what a resume
 * continues. A problem is reported through `invalid` and the entry dropped, never the node.
 */
export class NodeTranscript {
  readonly #store: RunStore;
  readonly #runId: string;
  readonly #nodeId: string;
  readonly #now: () => number;
  readonly #record: TranscriptRecord;
  readonly #parts: TranscriptParts;
  readonly #invalid: (reason: string) => void;

  constructor(options: {
    store: RunStore;
    runId: string;
    nodeId: string;
    scrub: SecretScrubber;
    now: () => number;
    /** Records a `transcript.invalid` event on the node with the reason. */
    invalid: (reason: string) => void;
  }) {
    this.#store = options.store;
    this.#runId = options.runId;
    this.#nodeId = options.nodeId;
    this.#now = options.now;
    this.#record = new TranscriptRecord(options.scrub);
    this.#parts = new TranscriptParts(options.invalid);
    this.#invalid = options.invalid;
  }

  /** A `transcript` event's fields from the child: one entry, or a piece of one. */
  take(sent: unknown): void {
    const fields = this.#parts.take(sent);
    if (fields === undefined) return;
    const read = this.#record.read(fields);
    if ('invalid' in read) {
      this.#invalid(read.invalid);
      return;
    }
    this.#store.appendTranscript(this.#runId, this.#nodeId, this.#now(), read.entry);
    killPoint(
      read.entry.op === 'append' && read.entry.message.role === 'tool' ? 'tool-result' : undefined,
      this.#store,
    );
  }

  /** A warm node's turn ended with `outcome` (already scrubbed): marked in its transcript. */
  turn(outcome: Outcome): void {
    this.#store.appendTranscript(
      this.#runId,
      this.#nodeId,
      this.#now(),
      this.#record.turn(outcome),
    );
  }
}
