import {
  ChildTranscriptEntrySchema,
  OPAQUE_FIELDS,
  type ChildTranscriptEntry,
  type Outcome,
  type SecretScrubber,
  type TranscriptEntry,
  type TranscriptMessage,
} from '../../protocol/index.js';

/**
 * A node's transcript as it is recorded: each change the child reports, checked against the
 * schema and passed through the run's secret scrubber (every credential the run holds, anything
 * credential-shaped whoever's it is) before it reaches the store. An assistant message's opaque
 * provider fields (`OPAQUE_FIELDS`) are kept byte for byte: a resume sends them back as they came.
 */
export class TranscriptRecord {
  readonly #scrub: SecretScrubber;

  constructor(scrub: SecretScrubber) {
    this.#scrub = scrub;
  }

  /** The entry to store, or a reason it is not one. */
  read(fields: unknown): { entry: ChildTranscriptEntry } | { invalid: string } {
    // A child reports its messages; only the supervisor marks a turn as announced.
    const parsed = ChildTranscriptEntrySchema.safeParse(fields);
    if (!parsed.success) return { invalid: parsed.error.issues[0]?.message ?? 'invalid entry' };
    const entry = parsed.data;
    if (entry.op !== 'append') return { entry };
    return { entry: { op: 'append', message: scrubMessage(entry.message, this.#scrub) } };
  }

  /** The mark of a turn whose answer reached the supervisor, with its outcome (already scrubbed). */
  turn(outcome: Outcome): TranscriptEntry {
    return { op: 'turn', outcome };
  }
}

/** A transcript message, scrubbed; an assistant message keeps its opaque provider fields. */
export function scrubMessage(message: TranscriptMessage, scrub: SecretScrubber): TranscriptMessage {
  return scrub.deep(message, message.role === 'assistant' ? OPAQUE_FIELDS : undefined);
}

/**
 * A turn's spec or result, scrubbed: its messages as transcript messages (so their reasoning is
 * kept, see `scrubMessage`), everything else as any other value.
 */
export function scrubTurn<T extends { messages: TranscriptMessage[] }>(
  turn: T,
  scrub: SecretScrubber,
): T {
  return {
    ...scrub.deep({ ...turn, messages: [] }),
    messages: turn.messages.map((message) => scrubMessage(message, scrub)),
  };
}
