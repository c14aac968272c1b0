import { REDACTED } from './redact.js';
import { MIN_SECRET_LENGTH, PARTIAL_SHAPES_SOURCE, SHAPES_SOURCE } from './secret-patterns.js';

/** A match of a secret in a text: from `index` up to, not including, `end`. */
export interface SecretSpan {
  index: number;
  end: number;
}

/**
 * One compiled search for a set of secret values and the credential shapes: the values first
 * (longest first, so a secret that contains another is taken whole), then the shapes, as one
 * regular expression. One expression, scanned once, is what makes a text's scrubbing the same
 * whether it is scrubbed whole or chunk by chunk: every decision is the leftmost match. Values are
 * matched ignoring case, as the shapes are: a key echoed in upper case is still the key.
 */
export class SecretMatcher {
  readonly #search: RegExp;
  readonly #partial = new RegExp(PARTIAL_SHAPES_SOURCE, 'gi');
  /** Each value as the search compares it (case folded), longest first. */
  readonly #folded: string[];
  /** The first code unit of each folded value: most tails are ruled out by it alone. */
  readonly #firsts: Set<number>;
  /** The longest value's length (0 when there is none). */
  readonly longest: number;

  constructor(values: Iterable<string>) {
    const kept = [...new Set(values)]
      .filter((value) => value.length >= MIN_SECRET_LENGTH)
      .sort((a, b) => b.length - a.length);
    const alternatives = [...kept.map(escapeRegExp), SHAPES_SOURCE];
    this.#search = new RegExp(alternatives.join('|'), 'gi');
    this.#folded = kept.map(fold);
    this.#firsts = new Set(this.#folded.map((value) => value.charCodeAt(0)));
    this.longest = kept[0]?.length ?? 0;
  }

  /** Matches starting at `from` or later, in order; `text` before `from` is context only. */
  *spans(text: string, from = 0): Generator<SecretSpan> {
    const search = this.#search;
    search.lastIndex = from;
    for (let match = search.exec(text); match !== null; match = search.exec(text)) {
      yield { index: match.index, end: search.lastIndex };
      // A match is never empty, but a guard against looping forever costs nothing.
      if (match[0] === '') search.lastIndex += 1;
    }
  }

  /**
   * `text` from `from` up to `to`, each match starting there replaced. Matches are found in the
   * whole of `text`, so what follows `to` decides as it would for the whole text (the caller makes
   * sure no match starting before `to` ends after it).
   */
  replace(text: string, from: number, to: number): string {
    let out = '';
    let at = from;
    for (const span of this.spans(text, from)) {
      if (span.index >= to) break;
      out += text.slice(at, span.index) + REDACTED;
      at = span.end;
    }
    return at >= to ? out : out + text.slice(at, to);
  }

  /**
   * Where the earliest tail of `text` (from `from` on) begins that is not a secret yet but could
   * become one as text is added: the beginning of a secret value, or of a credential shape. -1
   * when no tail could.
   */
  partialStart(text: string, from: number): number {
    this.#partial.lastIndex = from;
    const shape = this.#partial.exec(text);
    const start = shape === null ? -1 : shape.index;
    if (this.#folded.length === 0) return start;
    const window = Math.max(from, text.length - this.longest + 1);
    const tail = fold(text.slice(window));
    for (let i = 0; i < tail.length && (start < 0 || window + i < start); i += 1) {
      if (!this.#firsts.has(tail.charCodeAt(i))) continue;
      const rest = tail.slice(i);
      if (this.#folded.some((value) => value.startsWith(rest))) return window + i;
    }
    return start;
  }
}

/**
 * Case folding as a case-insensitive regular expression without the `u` flag does it: one code
 * unit at a time, to upper case, unless that takes more than one unit or turns a non-ASCII unit
 * into an ASCII one (ECMA-262 Canonicalize).
 */
function fold(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i += 1) {
    const unit = text.charAt(i);
    const upper = unit.toUpperCase();
    const keep = upper.length !== 1 || (unit.charCodeAt(0) >= 128 && upper.charCodeAt(0) < 128);
    out += keep ? unit : upper;
  }
  return out;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}
