/** Why a line on the control channel was not a frame. */
export const VIOLATION_CODES = [
  /** The line exceeded the frame cap; it was discarded without being buffered whole. */
  'frame_too_large',
  /** The line was not valid UTF-8. */
  'invalid_utf8',
  /** The line was not valid JSON. */
  'malformed_json',
  /** The line was JSON but not an object. */
  'not_an_object',
  /** An object key was `__proto__` or `constructor`. */
  'forbidden_key',
  /** The object had no string `type`. */
  'missing_type',
  /** `type` named no frame of protocol v1. */
  'unknown_type',
  /** A `spawn` or `ready` frame of a protocol version this build does not speak. */
  'unsupported_version',
  /** A valid frame that travels the other way (a control frame read from a child, say). */
  'wrong_direction',
  /** A known frame type whose fields did not match its schema. */
  'invalid_frame',
  /** A frame nested deeper than `MAX_FRAME_DEPTH`, or past what one child may hold open or send
   * (see `CHILD_BOUNDS`). */
  'over_bound',
  /** An entry on a fleet stream whose MAC did not verify, or that came out of sequence. */
  'bad_signature',
] as const;
export type ViolationCode = (typeof VIOLATION_CODES)[number];

/** A line that could not be turned into a frame. The reader reports it and moves on. */
export interface ProtocolViolation {
  /** 1-based line number in the stream. */
  line: number;
  code: ViolationCode;
  /** What was wrong, in words: names the field, what was expected and what came. */
  reason: string;
  /** The start of the offending line, with secret-looking values masked. */
  excerpt: string;
}

const EXCERPT_CHARS = 80;
const SECRET_VALUE =
  /("[^"]*(?:key|token|secret|password|authorization|cookie)[^"]*"\s*:\s*)"(?:[^"\\]|\\.)*"?/gi;

/** The first characters of a line, safe to log: control characters escaped, secrets masked. */
export function excerptOf(text: string): string {
  const head = text.length > EXCERPT_CHARS * 4 ? text.slice(0, EXCERPT_CHARS * 4) : text;
  const masked = head.replace(SECRET_VALUE, '$1"[redacted]"');
  const clipped = masked.length > EXCERPT_CHARS ? `${masked.slice(0, EXCERPT_CHARS)}…` : masked;
  // Escape control characters so an excerpt can never break a log line or a terminal.
  return clipped.replace(/\p{Cc}/gu, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** One line of text for a violation: `<code> at line <n>: <reason>`. */
export function describeViolation(violation: ProtocolViolation): string {
  return `${violation.code} at line ${violation.line}: ${violation.reason}`;
}
