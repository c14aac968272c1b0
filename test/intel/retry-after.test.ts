import { describe, expect, it } from 'vitest';
import {
  ALL_DOWN_CURVE,
  RETRY_CURVE,
  backoffDelay,
  parseRetryAfter,
} from '../../src/intel/index.js';

const NOW = Date.parse('2030-01-01T00:00:00Z');

describe('parseRetryAfter', () => {
  it.each([
    ['delay-seconds', '7', 7_000],
    ['zero seconds', '0', 0],
    ['padded seconds', ' 12 ', 12_000],
    ['an HTTP date 30 s ahead', 'Tue, 01 Jan 2030 00:00:30 GMT', 30_000],
    ['an HTTP date in the past', 'Mon, 31 Dec 2029 23:59:00 GMT', 0],
  ])('reads %s', (_name, header, expected) => {
    expect(parseRetryAfter(header, NOW)).toBe(expected);
  });

  it.each([null, undefined, '', '-3', '1.5', 'soon', 'Tue, 99 Foo 2030'])(
    'ignores an absent or unreadable value: %j',
    (header) => {
      expect(parseRetryAfter(header, NOW)).toBeUndefined();
    },
  );
});

describe('backoffDelay', () => {
  it('doubles from the base to the cap, keeping a jittered upper half of each step', () => {
    const low = [0, 1, 2, 3, 4, 5, 6].map((n) => backoffDelay(ALL_DOWN_CURVE, n, () => 0));
    const high = [0, 1, 2, 3, 4, 5, 6].map((n) => backoffDelay(ALL_DOWN_CURVE, n, () => 0.999_999));
    expect(low).toEqual([1_000, 1_000, 2_000, 4_000, 8_000, 15_000, 15_000]);
    expect(high).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000]);
  });

  it('never leaves the curve, whatever the randomness', () => {
    for (let n = 0; n < 40; n++) {
      for (const r of [0, 0.3, 0.7, 0.999]) {
        const wait = backoffDelay(RETRY_CURVE, n, () => r);
        expect(wait).toBeGreaterThanOrEqual(RETRY_CURVE.baseMs);
        expect(wait).toBeLessThanOrEqual(RETRY_CURVE.maxMs);
      }
    }
  });
});
