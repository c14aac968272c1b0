import {
  CHILD_BOUNDS,
  TRANSCRIPT_EVENT,
  TranscriptPartSchema,
  decodeLine,
  formatIssues,
} from '../../protocol/index.js';

/**
 * Puts back together the transcript entries a child sent in pieces (`TranscriptPart`), one entry
 * at a time, holding at most `CHILD_BOUNDS.transcriptEntryChars` characters. The whole line is
 * decoded as any frame from a child is (nesting, forbidden keys, numbers, schema), so an entry in
 * pieces is checked exactly as one that came whole.
 *
 * What cannot be put together (a piece out of order, an entry past the bound, a line that is not a
 * transcript event) is reported through `invalid` and dropped, as an invalid entry is. So is an
 * entry left unfinished by a child that died mid-way: its restarted successor starts afresh.
 */
export class TranscriptParts {
  readonly #invalid: (reason: string) => void;
  #pieces: string[] = [];
  #chars = 0;
  /** An entry was dropped: its remaining pieces are ignored until the next entry starts. */
  #isSkipping = false;

  constructor(invalid: (reason: string) => void) {
    this.#invalid = invalid;
  }

  /** The fields of a whole entry (as sent, or put together), or undefined while pieces are due. */
  take(fields: unknown): unknown {
    if (!isPart(fields)) {
      this.#drop('a whole entry came before its last piece');
      this.#isSkipping = false;
      return fields;
    }
    const parsed = TranscriptPartSchema.safeParse(fields, { reportInput: true });
    if (!parsed.success) {
      this.#drop('a malformed piece came');
      this.#isSkipping = true;
      this.#invalid(`transcript piece: ${formatIssues(parsed.error.issues)}`);
      return undefined;
    }
    const part = parsed.data;
    if (part.index === 0) {
      this.#drop('another entry started before its last piece');
      this.#isSkipping = false;
    } else if (this.#isSkipping) return undefined;
    else if (part.index !== this.#pieces.length) {
      if (this.#pieces.length === 0)
        this.#invalid(`transcript piece ${part.index} came with no entry started`);
      else this.#drop(`piece ${part.index} came where piece ${this.#pieces.length} was due`);
      this.#isSkipping = true;
      return undefined;
    }
    this.#chars += part.text.length;
    if (this.#chars > CHILD_BOUNDS.transcriptEntryChars) {
      this.#drop(`it passed ${CHILD_BOUNDS.transcriptEntryChars} characters`);
      this.#isSkipping = true;
      return undefined;
    }
    this.#pieces.push(part.text);
    if (!part.last) return undefined;
    const line = this.#pieces.join('');
    this.#reset();
    return this.#decode(line);
  }

  #decode(line: string): unknown {
    const decoded = decodeLine(line, 0, 'up');
    if (!decoded.ok) {
      this.#invalid(`transcript entry in pieces: ${decoded.violation.reason}`);
      return undefined;
    }
    const { frame } = decoded;
    if (frame.type !== 'event' || frame.event !== TRANSCRIPT_EVENT || isPart(frame.fields)) {
      this.#invalid('transcript entry in pieces: expected one `transcript` event holding an entry');
      return undefined;
    }
    return frame.fields;
  }

  /** Drops an unfinished entry, saying why; nothing to do when none is being put together. */
  #drop(why: string): void {
    if (this.#pieces.length === 0) return;
    this.#invalid(
      `a transcript entry in pieces was dropped after ${this.#pieces.length} piece(s): ${why}`,
    );
    this.#reset();
  }

  #reset(): void {
    this.#pieces = [];
    this.#chars = 0;
  }
}

function isPart(fields: unknown): boolean {
  return (
    typeof fields === 'object' && fields !== null && (fields as { op?: unknown }).op === 'part'
  );
}
