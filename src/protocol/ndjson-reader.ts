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

  /** Feeds a chunk; returns the results of every line it completed, in order. */
  push(chunk: Uint8Array): DecodeResult<F>[] {
    const bytes = Buffer.isBuffer(chunk)
      ? chunk
      : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const out: DecodeResult<F>[] = [];
    let start = 0;
    for (;;) {
      const newline = bytes.indexOf(NEWLINE, start);
      if (newline === -1) {
        this.#hold(bytes.subarray(start), out);
        return out;
      }
      this.#finishLine(bytes.subarray(start, newline), out);
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
    let text = bytes.toString('utf8');
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
