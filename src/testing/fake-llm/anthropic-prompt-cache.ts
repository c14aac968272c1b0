import { createHash } from 'node:crypto';

/**
 * The fake server's prompt cache, played as Anthropic documents it. A request is read as a chain
 * of units in prompt order (tool definitions, system blocks, then each message's blocks); each
 * unit's key hashes the model and every unit up to it, so a key names a whole prefix. A unit with
 * `cache_control` is a breakpoint. At each breakpoint the cache is looked up at it and up to 20
 * blocks before it; the longest prefix found is read. Every breakpoint past it whose prefix holds
 * at least `minTokens` tokens is written, with its TTL. Tokens are counted as four characters of
 * the unit's JSON (its `cache_control` left out), the fake's rule everywhere.
 */
export class FakePromptCache {
  /** Prefix key → when the entry expires (ms since the epoch) and its lifetime. */
  readonly #entries = new Map<string, { expiresAt: number; ttlMs: number }>();

  /** Accounts one request: what it read, what it wrote, and writes the new entries. */
  account(body: AnthropicBodyView, minTokens: number, now: number): CacheAccount {
    const units = unitsOf(body);
    const breakpoints = units.flatMap((unit, index) => (unit.ttlMs === undefined ? [] : [index]));
    let readAt = -1;
    for (const at of breakpoints) {
      for (let back = at; back >= Math.max(0, at - LOOKBACK_BLOCKS); back -= 1) {
        const key = units[back]?.key;
        const entry = key === undefined ? undefined : this.#entries.get(key);
        if (entry !== undefined && entry.expiresAt > now && back > readAt) readAt = back;
      }
    }
    const readUnit = units[readAt];
    if (readUnit !== undefined) {
      const entry = this.#entries.get(readUnit.key);
      // A read refreshes the entry's lifetime.
      if (entry !== undefined) entry.expiresAt = now + entry.ttlMs;
    }
    const read = readUnit?.tokens ?? 0;
    let written = read;
    const account: CacheAccount = { read, write5m: 0, write1h: 0 };
    for (const at of breakpoints) {
      const unit = units[at];
      if (at <= readAt || unit?.ttlMs === undefined || unit.tokens < minTokens) continue;
      this.#entries.set(unit.key, { expiresAt: now + unit.ttlMs, ttlMs: unit.ttlMs });
      if (unit.ttlMs === HOUR_MS) account.write1h += unit.tokens - written;
      else account.write5m += unit.tokens - written;
      written = unit.tokens;
    }
    return account;
  }
}

/** How far before a breakpoint the API looks for a cached prefix, in blocks. */
const LOOKBACK_BLOCKS = 20;
const CHARS_PER_TOKEN = 4;
const HOUR_MS = 60 * 60 * 1000;
const FIVE_MINUTES_MS = 5 * 60 * 1000;

/** Tokens one request read from the cache and wrote to it, by lifetime. */
export interface CacheAccount {
  read: number;
  write5m: number;
  write1h: number;
}

/** The parts of a (validated) messages request the cache reads. */
export interface AnthropicBodyView {
  model: string;
  tools?: readonly object[] | undefined;
  system?: string | readonly object[] | undefined;
  messages: readonly { role: string; content: string | readonly object[] }[];
}

interface Unit {
  key: string;
  /** Tokens of the prefix up to and including this unit. */
  tokens: number;
  /** The breakpoint's lifetime, when the unit is one. */
  ttlMs: number | undefined;
}

function unitsOf(body: AnthropicBodyView): Unit[] {
  // Each unit: where it sits (hashed, so a block moved is another prefix) and the block itself
  // (counted: its JSON is part of the request's, so a prefix never outweighs the request).
  const units: { at: string; block: object }[] = [
    ...(body.tools ?? []).map((tool, index) => ({ at: `tools.${index}`, block: tool })),
    ...(body.system === undefined
      ? []
      : typeof body.system === 'string'
        ? [{ at: 'system.0', block: { type: 'text', text: body.system } }]
        : body.system.map((block, index) => ({ at: `system.${index}`, block }))),
    ...body.messages.flatMap((message, m) =>
      (typeof message.content === 'string'
        ? [{ type: 'text', text: message.content }]
        : message.content
      ).map((block, b) => ({ at: `messages.${m}.${message.role}.${b}`, block })),
    ),
  ];
  let hash = createHash('sha256').update(`model:${body.model}`).digest('hex');
  let chars = 0;
  return units.map(({ at, block }) => {
    const { marker, json } = withoutMarker(block);
    hash = createHash('sha256').update(hash).update(at).update(json).digest('hex');
    chars += json.length;
    return { key: hash, tokens: Math.ceil(chars / CHARS_PER_TOKEN), ttlMs: ttlOf(marker) };
  });
}

/** The block's JSON without its own `cache_control`, and that marker. */
function withoutMarker(block: object): { marker: unknown; json: string } {
  const { cache_control: marker, ...rest } = block as { cache_control?: unknown };
  return { marker, json: JSON.stringify(rest) };
}

function ttlOf(marker: unknown): number | undefined {
  if (typeof marker !== 'object' || marker === null) return undefined;
  return (marker as { ttl?: unknown }).ttl === '1h' ? HOUR_MS : FIVE_MINUTES_MS;
}
