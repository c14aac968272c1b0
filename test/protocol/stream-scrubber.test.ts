import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_HELD_CHARS, REDACTED, SecretScrubber } from '../../src/protocol/index.js';

const KEY = 'sk-ant-api03-Zq8vL2mN4pR7tX1y';
const REDIS = 'redis-Pa55word-9';
const scrub = new SecretScrubber([KEY, REDIS]);

/** Streams `chunks` through a fresh stream scrubber: the pieces it releases, flush last. */
function streamed(chunks: readonly string[]): string[] {
  const stream = scrub.stream();
  return [...chunks.map((chunk) => stream.push(chunk)), stream.flush()];
}

/** `text` cut at `cuts` (sorted positions). */
function cutAt(text: string, cuts: readonly number[]): string[] {
  const out: string[] = [];
  let at = 0;
  for (const cut of [...cuts, text.length]) {
    out.push(text.slice(at, cut));
    at = cut;
  }
  return out;
}

const TEXTS = [
  ['the run key', `Here it is: ${KEY}. Done.`],
  ['a Redis password in a URL', `redis://:${REDIS}@cache:6379/0`],
  ['a GitHub token', 'use ghp_0123456789abcdefABCDEF0123 now'],
  ['a bearer header', 'Authorization: Bearer abc.def-ghi_jkl~mno and more'],
  ['a JWT', 'jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl end'],
  ['an AWS key id', 'id AKIAIOSFODNN7EXAMPLE.'],
  [
    'a PEM private key',
    'key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----\nafter',
  ],
  ['a key at the very end', `ends with ${KEY}`],
] as const;

describe('StreamScrubber: a secret split across chunks', () => {
  it.each(TEXTS)(
    '%s: at every split position, no piece shows it and the pieces join to the scrubbed whole',
    (_, text) => {
      const whole = scrub.text(text);
      expect(whole).toContain(REDACTED);
      for (let at = 0; at <= text.length; at += 1) {
        const pieces = streamed([text.slice(0, at), text.slice(at)]);
        expect(pieces.join('')).toBe(whole);
        for (const piece of pieces) {
          expect(piece).not.toContain(KEY.slice(0, 12));
          expect(piece).not.toContain(REDIS.slice(4));
        }
      }
    },
  );

  it.each(TEXTS)('%s: one character per chunk', (_, text) => {
    const pieces = streamed(text.split(''));
    expect(pieces.join('')).toBe(scrub.text(text));
    expect(pieces.some((piece) => piece.includes(KEY.slice(0, 10)))).toBe(false);
  });

  it('releases plain text at once, and holds only a tail that may still become a secret', () => {
    const stream = scrub.stream();
    expect(stream.push('Hello, world. ')).toBe('Hello, world. ');
    expect(stream.push('The key: sk-ant')).toBe('The key: ');
    expect(stream.isHolding).toBe(true);
    expect(stream.push('-api03-Zq8vL2mN4pR7tX1y and')).toBe(`${REDACTED} and`);
    expect(stream.flush()).toBe('');
  });

  it('holds the beginning of a run secret that is not credential-shaped', () => {
    const stream = scrub.stream();
    expect(stream.push('pass: redis-Pa5')).toBe('pass: ');
    expect(stream.push('5word-9!')).toBe(`${REDACTED}!`);
  });

  it('releases what it held at the end of the text, scrubbed', () => {
    const stream = scrub.stream();
    expect(stream.push('partial redis-Pa5')).toBe('partial ');
    expect(stream.flush()).toBe('redis-Pa5');
    expect(stream.isHolding).toBe(false);
  });

  it('drops what it held when the text is abandoned', () => {
    const stream = scrub.stream();
    stream.push('abandoned sk-ant-api03');
    stream.discard();
    expect(stream.push('fresh text.')).toBe('fresh text.');
  });

  it(`holds at most ${MAX_HELD_CHARS} characters, and never releases part of a value`, () => {
    const stream = scrub.stream();
    const long = `eyJ${'a'.repeat(MAX_HELD_CHARS + 100)}`;
    const out = stream.push(long);
    expect(out.length).toBeGreaterThan(0);
    expect(stream.push(` ${KEY} `)).not.toContain('Zq8vL2');
  });

  it('joins to the scrubbed whole for any text and any chunking (property)', () => {
    const fragment = fc.oneof(
      fc.constantFrom(KEY, REDIS, KEY.toUpperCase(), 'ghp_0123456789abcdef', 'Bearer tok123456'),
      fc.constantFrom(
        'eyJabcdefg.hij.klm',
        'AKIAIOSFODNN7EXAMPLE',
        '-----BEGIN EC PRIVATE KEY-----',
      ),
      fc.constantFrom(
        '-----END EC PRIVATE KEY-----',
        'sk-',
        'redis-',
        'x',
        ' ',
        '\n',
        '.',
        '-',
        '_',
      ),
      fc.string({ maxLength: 6 }),
    );
    fc.assert(
      fc.property(
        fc.array(fragment, { maxLength: 12 }),
        fc.array(fc.nat({ max: 400 }), { maxLength: 8 }),
        (fragments, rawCuts) => {
          const text = fragments.join('');
          const cuts = [...new Set(rawCuts.map((cut) => cut % (text.length + 1)))].sort(
            (a, b) => a - b,
          );
          const pieces = streamed(cutAt(text, cuts));
          expect(pieces.join('')).toBe(scrub.text(text));
          for (const piece of pieces) expect(piece).not.toContain(KEY);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
