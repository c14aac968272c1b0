import { ArborError } from './errors.js';
import type { Frame } from './decode.js';
import { MAX_FRAME_BYTES } from './version.js';

/**
 * Encodes one frame as one NDJSON line. `JSON.stringify` escapes every newline inside strings, so
 * a frame is always exactly one line. A frame over the cap is refused here, before it is written,
 * rather than being rejected by the reader on the other side.
 */
export function encodeFrame(frame: Frame): string {
  const line = JSON.stringify(frame);
  // UTF-8 takes at most 3 bytes per UTF-16 unit, so short lines skip the exact count.
  if (line.length * 3 > MAX_FRAME_BYTES) {
    const bytes = Buffer.byteLength(line, 'utf8');
    if (bytes > MAX_FRAME_BYTES) {
      throw new ArborError(
        'frame_too_large',
        `Expected a \`${frame.type}\` frame of at most ${MAX_FRAME_BYTES} bytes, got ${bytes} bytes`,
        { details: { type: frame.type, bytes, maxBytes: MAX_FRAME_BYTES } },
      );
    }
  }
  return `${line}\n`;
}
