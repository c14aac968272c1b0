import { describe, expect, it } from 'vitest';
import { distillResult } from '../../src/supervisor/index.js';
import { cut, MAX_RESULT_BYTES, MAX_STRUCTURED_BYTES } from '../../src/supervisor/node/distill.js';

describe('distillResult', () => {
  it('re-parses JSON text into a value', () => {
    expect(distillResult('{"count": 3}')).toEqual({ count: 3 });
    expect(distillResult('  [1, 2]\n')).toEqual([1, 2]);
    expect(distillResult('{not json')).toBe('{not json');
    expect(distillResult('42')).toBe('42');
    expect(distillResult(null)).toBeNull();
  });

  it('cuts long text at a character boundary and says so', () => {
    const text = '🌳'.repeat(MAX_RESULT_BYTES);
    const out = distillResult(text) as string;
    expect(Buffer.byteLength(out.split('… [truncated')[0]!)).toBeLessThanOrEqual(MAX_RESULT_BYTES);
    expect(out).toMatch(/… \[truncated: \d+ of 32000 bytes shown\]$/);
    expect(out).not.toContain('\uFFFD');
    expect(distillResult('short')).toBe('short');
  });

  it('turns an oversized structured result into marked text', () => {
    const big = { items: Array.from({ length: 5_000 }, (_, i) => `item ${i}`) };
    const out = distillResult(big);
    expect(typeof out).toBe('string');
    expect(out as string).toContain('[truncated:');
    expect(Buffer.byteLength((out as string).split('… [truncated')[0]!)).toBeLessThanOrEqual(
      MAX_STRUCTURED_BYTES,
    );
  });

  it('never ends a cut on half a surrogate pair', () => {
    expect(cut('a🌳', 2)).toBe('a… [truncated: 1 of 5 bytes shown]');
  });
});
