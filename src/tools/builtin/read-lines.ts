import type { FileHandle } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';

export interface LineWindow {
  /** The text of the lines read, joined with `\n`. */
  text: string;
  /** 1-based number of the first line returned (the requested offset). */
  first: number;
  /** 1-based number of the last line returned; `first - 1` when none was. */
  last: number;
  /** Whether the file goes on after `last`. */
  more: boolean;
  /** Whether the last line returned was cut at the byte cap (one line longer than the cap). */
  cut: boolean;
  /** Lines in the file, known only when the read reached its end. */
  total: number | undefined;
}

const CHUNK_BYTES = 64 * 1024;

/**
 * Reads lines `offset … offset+limit-1` (1-based) of a UTF-8 file, streaming, so a huge file costs
 * only the lines before the window and the window itself. At most `maxBytes` of text come back: the
 * window stops early at a whole line, or, when its first line alone is longer than the cap, returns
 * that line's head and says it was cut.
 */
export async function readLines(
  handle: FileHandle,
  window: { offset: number; limit: number; maxBytes: number },
  { signal }: { signal?: AbortSignal } = {},
): Promise<LineWindow> {
  const decoder = new StringDecoder('utf8');
  const buffer = Buffer.alloc(CHUNK_BYTES);
  const kept: string[] = [];
  let keptBytes = 0;
  let lineNo = 1;
  let carry = '';
  let position = 0;
  const result = (more: boolean, cut: boolean, total?: number): LineWindow => ({
    text: kept.join('\n'),
    first: window.offset,
    last: window.offset + kept.length - 1,
    more,
    cut,
    total,
  });
  // Takes one whole line; returns a finished window when the line ends the read.
  const take = (line: string): LineWindow | undefined => {
    if (lineNo < window.offset) return undefined;
    if (kept.length >= window.limit) return result(true, false);
    const bytes = Buffer.byteLength(line) + (kept.length > 0 ? 1 : 0);
    if (keptBytes + bytes > window.maxBytes) {
      if (kept.length > 0) return result(true, false);
      kept.push(headBytes(line, window.maxBytes));
      return result(true, true);
    }
    kept.push(line);
    keptBytes += bytes;
    return undefined;
  };
  for (;;) {
    signal?.throwIfAborted();
    const { bytesRead } = await handle.read(buffer, 0, CHUNK_BYTES, position);
    position += bytesRead;
    const atEnd = bytesRead === 0;
    const text = carry + (atEnd ? decoder.end() : decoder.write(buffer.subarray(0, bytesRead)));
    const lines = text.split('\n');
    // The piece after the last newline is an unfinished line, unless the file ended.
    carry = atEnd ? '' : (lines.pop() ?? '');
    if (atEnd && lines.at(-1) === '') lines.pop();
    for (const line of lines) {
      const done = take(line);
      if (done !== undefined) return done;
      lineNo += 1;
    }
    if (atEnd) return result(false, false, lineNo - 1);
    // A line longer than the cap never has to be held whole (a minified bundle, a binary blob).
    if (carry.length > window.maxBytes) {
      // Before the window only the line count matters: keep one character as a placeholder.
      if (lineNo < window.offset) carry = carry.slice(0, 1);
      else if (kept.length > 0) return result(true, false);
      else {
        kept.push(headBytes(carry, window.maxBytes));
        return result(true, true);
      }
    }
  }
}

/** The longest head of `text` that fits in `maxBytes` of UTF-8, never splitting a character. */
function headBytes(text: string, maxBytes: number): string {
  const head = Buffer.from(text).subarray(0, maxBytes).toString('utf8');
  // A cut inside a multi-byte character decodes to U+FFFD at the end: drop it.
  return head.endsWith('\uFFFD') && !text.startsWith(head) ? head.slice(0, -1) : head;
}
