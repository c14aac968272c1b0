import type { SecretMatcher } from './secret-matcher.js';

/**
 * How much text a stream holds back at most while it waits to see whether a tail becomes a
 * secret: a PEM private key block of 4096-bit RSA is about 3.3 KB, a JWT rarely past 2 KB. A
 * longer run is released (a match that reaches the cut is redacted whole, as far as it has come).
 */
export const MAX_HELD_CHARS = 16_384;

/**
 * A text that arrives in chunks (a model's streamed answer), scrubbed as it passes. Each chunk
 * releases what can no longer become part of a secret; a tail that may still be the beginning of
 * a secret value or of a credential — or a match that may still grow — is held until the next
 * chunk, `flush`, or `discard`. So a secret split across chunks never shows in any piece released,
 * and the pieces joined are the scrubbed whole text (up to `MAX_HELD_CHARS` held at once).
 */
export class StreamScrubber {
  readonly #matcher: () => SecretMatcher;
  #held = '';
  /** The last character released: whether a held tail starts at a word boundary depends on it. */
  #before = '';

  /** `matcher` is read at every chunk: secrets the run learns of later apply from then on. */
  constructor(matcher: () => SecretMatcher) {
    this.#matcher = matcher;
  }

  /** Whether text is held back. */
  get isHolding(): boolean {
    return this.#held !== '';
  }

  /** The next chunk in; out, what of the text so far is sure to be scrubbed as it will stay. */
  push(chunk: string): string {
    const matcher = this.#matcher();
    const text = this.#before + this.#held + chunk;
    const from = this.#before.length;
    const partial = matcher.partialStart(text, from);
    let cut = partial < 0 ? text.length : partial;
    for (const span of matcher.spans(text, from)) {
      // A match that reaches the end may still grow; one across the cut must go out whole or not at all.
      if (span.end === text.length || (span.index < cut && span.end > cut))
        cut = Math.min(cut, span.index);
    }
    if (text.length - cut > MAX_HELD_CHARS) cut = forcedCut(matcher, text, from);
    return this.#release(matcher, text, from, cut);
  }

  /** Everything held, scrubbed: the text has ended (the model's step, or the node). */
  flush(): string {
    const text = this.#before + this.#held;
    const out = this.#release(this.#matcher(), text, this.#before.length, text.length);
    this.#before = '';
    return out;
  }

  /** Drops what is held, unreleased: the text it belonged to was abandoned (`text.reset`). */
  discard(): void {
    this.#held = '';
    this.#before = '';
  }

  #release(matcher: SecretMatcher, text: string, from: number, cut: number): string {
    if (cut <= from) {
      this.#held = text.slice(from);
      return '';
    }
    const out = matcher.replace(text, from, cut);
    this.#held = text.slice(cut);
    this.#before = text.charAt(cut - 1);
    return out;
  }
}

/** Where a stream holding too much is cut: `MAX_HELD_CHARS` from the end, after a match across it. */
function forcedCut(matcher: SecretMatcher, text: string, from: number): number {
  const cut = text.length - MAX_HELD_CHARS;
  for (const span of matcher.spans(text, from)) {
    if (span.index >= cut) break;
    if (span.end > cut) return span.end;
  }
  return cut;
}
