import { CHILD_BOUNDS } from '../protocol/index.js';

type Fields = Record<string, unknown>;

/** Room left in an event's bound for the marks this file adds. */
const SLACK = 1024;

/**
 * The fields to send for one event, each set within the bound the supervisor holds a child's
 * events to (`CHILD_BOUNDS.fieldsChars`). Events are for watching and for the record, not for
 * resuming (the transcript is), so a child keeps its own frames within the protocol rather than
 * have the supervisor count an honest model's large answer as its violation:
 *
 * - a `text.delta` past the bound (an answer that arrived whole, not streamed) is cut into several
 *   deltas, which add up to the same text;
 * - any other event past it (`tool.call` with a large call's arguments when content is logged)
 *   has its largest fields shortened, each marked with how much was cut, and `truncated: true`.
 */
export function boundedEvent(event: string, fields: Fields): Fields[] {
  const max = CHILD_BOUNDS.fieldsChars;
  const size = jsonChars(fields);
  if (size <= max) return [fields];
  if (event === 'text.delta' && typeof fields.text === 'string') {
    // A character takes at most 6 in JSON (`\u0001`): pieces this long always fit.
    const pieces = cut(fields.text, Math.floor((max - SLACK - (size - fields.text.length)) / 6));
    return pieces.map((text) => ({ ...fields, text }));
  }
  return [shortened(fields, max - SLACK)];
}

/** `fields` with its largest values shortened until the whole fits in `max` characters. */
function shortened(fields: Fields, max: number): Fields {
  const out: Fields = { ...fields, truncated: true };
  for (let over = jsonChars(out) - max; over > 0; over = jsonChars(out) - max) {
    const [key, value] = largest(out);
    if (key === undefined) break;
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    // Half of what stays is room for escapes, so one pass is enough for any value.
    const keep = Math.max(0, Math.floor((text.length - over) / 2) - 64);
    const kept = keep === 0 ? '' : (cut(text, keep)[0] ?? '');
    out[key] = `${kept}… [${text.length - kept.length} characters cut: past the event bound]`;
  }
  return out;
}

/** The field whose value is largest as JSON (not one already shortened to its minimum). */
function largest(fields: Fields): [string | undefined, unknown] {
  let best: [string | undefined, unknown] = [undefined, undefined];
  let bestChars = 256;
  for (const [key, value] of Object.entries(fields)) {
    const chars = jsonChars(value);
    if (chars > bestChars) {
      best = [key, value];
      bestChars = chars;
    }
  }
  return best;
}

/** `text` in pieces of at most `size` characters (at least 1), never inside a surrogate pair. */
function cut(text: string, size: number): string[] {
  const step = Math.max(1, size);
  const pieces: string[] = [];
  for (let start = 0; start < text.length;) {
    let end = Math.min(start + step, text.length);
    const before = text.charCodeAt(end - 1);
    if (end < text.length && end - start > 1 && before >= 0xd800 && before <= 0xdbff) end -= 1;
    pieces.push(text.slice(start, end));
    start = end;
  }
  return pieces;
}

function jsonChars(value: unknown): number {
  return JSON.stringify(value ?? null).length;
}
