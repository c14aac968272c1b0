import { SecretMatcher } from './secret-matcher.js';
import { StreamScrubber } from './stream-scrubber.js';

/**
 * Keys of opaque provider data: what a provider gives back and must be sent again byte for byte.
 * An assistant message's `reasoning` (Anthropic's thinking blocks with their signatures, the
 * Responses API's encrypted reasoning) is the one a transcript carries: the provider checks its
 * signature over the thinking text, so a secret-looking string the model happened to think must
 * stay as it was or the next call of the turn is refused. `deep` leaves these keys alone where its
 * caller says the object is the provider's (a transcript message's own fields, never a tool's
 * arguments, which the model writes). No event, outcome or view carries them.
 */
export const OPAQUE_FIELDS: ReadonlySet<string> = new Set([
  'reasoning',
  'signature',
  'encrypted_content',
  'redacted_thinking',
]);

/**
 * The one secret scrubber: everything arbor stores, logs, streams, exports or prints passes it.
 * It replaces every value of the run's own secrets (API keys, header tokens, MCP credentials, the
 * serve and fleet tokens: each at least 8 characters long) and anything shaped like a credential,
 * whoever's it is, with `[redacted]`. `text` for a string, `deep` for a JSON value, `stream` for
 * text that arrives in chunks. Secrets learnt while the run goes on (a child's payload, a swapped
 * intelligence) are `add`ed and apply from then on.
 */
export class SecretScrubber {
  readonly #values = new Set<string>();
  #matcher: SecretMatcher;

  constructor(values: Iterable<string> = []) {
    for (const value of values) this.#values.add(value);
    this.#matcher = new SecretMatcher(this.#values);
  }

  /** Adds secret values; the search is built again only when one of them is new. */
  add(values: Iterable<string>): this {
    const before = this.#values.size;
    for (const value of values) this.#values.add(value);
    if (this.#values.size !== before) this.#matcher = new SecretMatcher(this.#values);
    return this;
  }

  /** `text` with every secret in it replaced (the same string when it holds none). */
  text(text: string): string {
    return this.#matcher.replace(text, 0, text.length);
  }

  /**
   * A JSON value with every string in it scrubbed, object keys included (a model may put a key in
   * a key). `opaque` names keys of `value`'s own top level that are kept as they are (see
   * `OPAQUE_FIELDS`). Parts that hold no secret are returned as they were, not copied.
   */
  deep<T>(value: T, opaque?: ReadonlySet<string>): T {
    return this.#deep(value, opaque) as T;
  }

  /** A scrubber for one text that arrives in chunks (see `StreamScrubber`). */
  stream(): StreamScrubber {
    return new StreamScrubber(() => this.#matcher);
  }

  /**
   * Nothing is allocated until the first change: most values hold no secret, and events pass here
   * by the thousand per second.
   */
  #deep(value: unknown, opaque?: ReadonlySet<string>): unknown {
    if (typeof value === 'string') return this.text(value);
    if (typeof value !== 'object' || value === null) return value;
    if (Array.isArray(value)) {
      const items = value as readonly unknown[];
      let out: unknown[] | undefined;
      for (let index = 0; index < items.length; index += 1) {
        const item = items[index];
        const scrubbed = this.#deep(item);
        if (out === undefined && scrubbed !== item) out = items.slice(0, index);
        out?.push(scrubbed);
      }
      return out ?? value;
    }
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record);
    let out: Record<string, unknown> | undefined;
    let index = 0;
    for (const key of keys) {
      const item = record[key];
      const kept = opaque?.has(key) === true;
      const name = kept ? key : this.text(key);
      const scrubbed = kept ? item : this.#deep(item);
      if (out === undefined && (name !== key || scrubbed !== item)) {
        out = {};
        for (const earlier of keys.slice(0, index)) define(out, earlier, record[earlier]);
      }
      if (out !== undefined) define(out, name, scrubbed);
      index += 1;
    }
    return out ?? value;
  }
}

/** Defined, not assigned: a `__proto__` key stays a key and never becomes the prototype. */
function define(out: Record<string, unknown>, name: string, value: unknown): void {
  Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
}
