import { z } from 'zod';
import { CHILD_BOUNDS } from './bounds.js';
import { CountSchema } from './primitives.js';

/**
 * One piece of a transcript entry too large for one `event` frame's fields (`fieldsChars`): a
 * model's 5 MB `fs.write` call, say. The child sends the entry's whole frame (one NDJSON line, as
 * `encodeFrame` would write it) cut into pieces, each as the fields of a `transcript` event, in
 * order; the supervisor puts the line back together and decodes it like any frame it reads. So
 * every frame stays within the bounds, and a large entry is still recorded whole.
 */
export const TranscriptPartSchema = z.strictObject({
  op: z.literal('part'),
  /** Where the piece goes, from 0. */
  index: CountSchema,
  /** Whether it is the entry's last piece. */
  last: z.boolean(),
  /** A slice of the entry's frame line. */
  text: z.string(),
});
export type TranscriptPart = z.infer<typeof TranscriptPartSchema>;

/**
 * Characters of each piece. Written as a JSON string inside the part's fields, a piece at most
 * doubles: the line holds no control characters and no lone surrogates (`JSON.stringify` escaped
 * them), so only `"` and `\` gain a character each, and a cut never splits a surrogate pair.
 */
export const TRANSCRIPT_PART_CHARS = Math.floor((CHILD_BOUNDS.fieldsChars - 1024) / 2);

/** Cuts a frame line into pieces of at most `size` characters, never inside a surrogate pair. */
export function transcriptParts(line: string, size = TRANSCRIPT_PART_CHARS): TranscriptPart[] {
  const parts: TranscriptPart[] = [];
  for (let start = 0; start < line.length;) {
    let end = Math.min(start + size, line.length);
    const before = line.charCodeAt(end - 1);
    if (end < line.length && end - start > 1 && before >= 0xd800 && before <= 0xdbff) end -= 1;
    parts.push({
      op: 'part',
      index: parts.length,
      last: end >= line.length,
      text: line.slice(start, end),
    });
    start = end;
  }
  return parts;
}
