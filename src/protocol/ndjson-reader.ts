import { isUtf8 } from 'node:buffer';
import { type DecodeResult } from './decode.js';
import { MAX_FRAME_BYTES } from './version.js';
import { excerptOf } from './violation.js';

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;
const BYTE_ORDER_MARK = 0xfeff;

export interface NdjsonReaderOptions {
  /** Longest line accepted, in bytes (newline excluded). Defaults to 16 MiB. */
  maxLineBytes?: number;
}

/** Turns one complete line (1-based number, text without its newline) into a result. */
export type LineDecoder<F> = (text: string, line: number) => DecodeResult<F>;

/**
 * An incremental NDJSON reader over byte chunks. Feed it chunks as they arrive; it returns a result
 * per complete non-blank line: a decoded frame or a violation. A line that grows past the cap is
 * reported as soon as it crosses it and dropped without being buffered whole; reading resumes
 * at the next newline. CRLF line ends are accepted.
 */
export class NdjsonReader<F> {
  readonly #decode: LineDecoder<F>;
  readonly #maxLineBytes: number;
  /** Bytes of the line in progress, when it spans chunks. */
  #parts: Buffer[] = [];
  #partBytes = 0;
  /** Lines completed so far. */
  #lines = 0;
  /** The line in progress crossed the cap and is being skipped up to its newline. */
  #discarding = false;

  constructor(decode: LineDecoder<F>, options: NdjsonReaderOptions = {}) {
    this.#decode = decode;
    this.#maxLineBytes = options.maxLineBytes ?? MAX_FRAME_BYTES;
  }

  /** Bytes held for the line in progress. Never more than the cap. */
  get bufferedBytes(): number {
    return this.#partBytes;
  }

  /**
   * Feeds a chunk; returns the results of every line it completed, in order. The chunk's complete
   * lines are UTF-8 checked and converted to text in one go (a newline byte never occurs inside a
   * multi-byte character, so the run is valid exactly when each of its lines is), which costs far
   * less than converting each line alone; a run that is not valid UTF-8 is read line by line, so
   * the violation names its line.
   */
  push(chunk: Uint8Array): DecodeResult<F>[] {
    const bytes = Buffer.isBuffer(chunk)
      ? chunk
      : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const out: DecodeResult<F>[] = [];
    let start = 0;
    if (this.#partBytes > 0 || this.#discarding) {
      const newline = bytes.indexOf(NEWLINE);
      if (newline === -1) {
        this.#hold(bytes, out);
        return out;
      }
      this.#finishLine(bytes.subarray(0, newline), out);
      start = newline + 1;
    }
    const last = bytes.lastIndexOf(NEWLINE);
    if (last >= start) {
      const run = bytes.subarray(start, last + 1);
      if (isUtf8(run)) this.#readText(run.toString('utf8'), out);
      else this.#readBytes(run, out);
      start = last + 1;
    }
    this.#hold(bytes.subarray(start), out);
    return out;
  }

  /** Complete lines as bytes, each ending in a newline: one at a time. */
  #readBytes(run: Buffer, out: DecodeResult<F>[]): void {
    let start = 0;
    for (
      let newline = run.indexOf(NEWLINE);
      newline !== -1;
      newline = run.indexOf(NEWLINE, start)
    ) {
      this.#finishLine(run.subarray(start, newline), out);
      start = newline + 1;
    }
  }

  /** Complete lines as valid text, each ending in a newline. */
  #readText(text: string, out: DecodeResult<F>[]): void {
    let start = 0;
    for (let newline = text.indexOf('\n'); newline !== -1; newline = text.indexOf('\n', start)) {
      this.#lines += 1;
      const line = this.#lines;
      // A line's UTF-8 length is at most three bytes per UTF-16 unit; only a line that could be
      // past the cap is measured.
      const length = newline - start;
      if (length * 3 > this.#maxLineBytes) {
        const lineBytes = Buffer.from(text.slice(start, newline), 'utf8');
        if (lineBytes.length > this.#maxLineBytes) {
          out.push(this.#tooLarge(line, lineBytes.length, lineBytes));
          start = newline + 1;
          continue;
        }
      }
      const end =
        newline > start && text.charCodeAt(newline - 1) === CARRIAGE_RETURN ? newline - 1 : newline;
      this.#decodeText(text.slice(start, end), line, out);
      start = newline + 1;
    }
  }

  /** Ends the stream: a last line without a newline is decoded too. */
  end(): DecodeResult<F>[] {
    const out: DecodeResult<F>[] = [];
    if (this.#discarding) {
      this.#discarding = false;
      this.#lines += 1;
    } else if (this.#partBytes > 0) {
      this.#finishLine(Buffer.alloc(0), out);
    }
    return out;
  }

  #hold(rest: Buffer, out: DecodeResult<F>[]): void {
    if (this.#discarding || rest.length === 0) return;
    if (this.#partBytes + rest.length > this.#maxLineBytes) {
      out.push(
        this.#tooLarge(this.#lines + 1, this.#partBytes + rest.length, this.#parts[0] ?? rest),
      );
      this.#drop();
      this.#discarding = true;
      return;
    }
    this.#parts.push(rest);
    this.#partBytes += rest.length;
  }

  #finishLine(tail: Buffer, out: DecodeResult<F>[]): void {
    this.#lines += 1;
    const line = this.#lines;
    if (this.#discarding) {
      this.#discarding = false;
      return;
    }
    const size = this.#partBytes + tail.length;
    if (size > this.#maxLineBytes) {
      out.push(this.#tooLarge(line, size, this.#parts[0] ?? tail));
      this.#drop();
      return;
    }
    let bytes = this.#parts.length === 0 ? tail : Buffer.concat([...this.#parts, tail], size);
    this.#drop();
    if (bytes.length > 0 && bytes[bytes.length - 1] === CARRIAGE_RETURN)
      bytes = bytes.subarray(0, -1);
    if (!isUtf8(bytes)) {
      out.push({
        ok: false,
        violation: {
          line,
          code: 'invalid_utf8',
          reason: 'line is not valid UTF-8',
          excerpt: excerptOf(bytes.toString('utf8')),
        },
      });
      return;
    }
    this.#decodeText(bytes.toString('utf8'), line, out);
  }

  /** A line's valid text, without its line end: decoded, unless it is blank. */
  #decodeText(text: string, line: number, out: DecodeResult<F>[]): void {
    if (line === 1 && text.charCodeAt(0) === BYTE_ORDER_MARK) text = text.slice(1);
    if (isBlank(text)) return;
    out.push(this.#decode(text, line));
  }

  #tooLarge(line: number, seen: number, head: Buffer): DecodeResult<F> {
    const reason = `line exceeds the ${this.#maxLineBytes}-byte frame cap (at least ${seen} bytes); skipped to the next newline`;
    return {
      ok: false,
      violation: {
        line,
        code: 'frame_too_large',
        reason,
        excerpt: excerptOf(head.subarray(0, 320).toString('utf8')),
      },
    };
  }

  #drop(): void {
    this.#parts = [];
    this.#partBytes = 0;
  }
}

function isBlank(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d) return false;
  }
  return true;
}
