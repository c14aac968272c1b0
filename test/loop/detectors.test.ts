import { describe, expect, it } from 'vitest';
import {
  checkGuards,
  LoopDetector,
  stableKey,
  StallDetector,
  type TurnBounds,
} from '../../src/loop/index.js';

const bounds: TurnBounds = { maxSteps: 3, maxTokens: 100, deadlineAt: 5_000, deadlineMs: 4_000 };

describe('checkGuards', () => {
  it.each([
    ['nothing', { cancelReason: undefined, now: 1_000, steps: 0, tokens: 0 }, undefined],
    ['steps', { cancelReason: undefined, now: 1_000, steps: 3, tokens: 0 }, 'exhausted_steps'],
    ['tokens', { cancelReason: undefined, now: 1_000, steps: 1, tokens: 100 }, 'exhausted_tokens'],
    ['deadline', { cancelReason: undefined, now: 5_000, steps: 1, tokens: 0 }, 'deadline'],
    [
      'cancel beats everything',
      { cancelReason: 'stop', now: 9_000, steps: 9, tokens: 900 },
      'cancelled',
    ],
    [
      'deadline beats steps and tokens',
      { cancelReason: undefined, now: 9_000, steps: 9, tokens: 900 },
      'deadline',
    ],
    [
      'steps beat tokens',
      { cancelReason: undefined, now: 1_000, steps: 9, tokens: 900 },
      'exhausted_steps',
    ],
  ])('%s', (_, progress, status) => {
    expect(checkGuards(progress, bounds)?.status).toBe(status);
  });

  it('names the limit and the amount in its reason', () => {
    expect(
      checkGuards({ cancelReason: undefined, now: 0, steps: 1, tokens: 150 }, bounds)?.reason,
    ).toBe('max_tokens 100 reached (150 tokens used)');
  });
});

describe('LoopDetector', () => {
  it('flags the call that reaches the threshold, whatever the key order', () => {
    const loops = new LoopDetector(3);
    expect(loops.record([{ id: '1', name: 'fs.read', args: { a: 1, b: 2 } }])).toBeUndefined();
    expect(loops.record([{ id: '2', name: 'fs.read', args: { b: 2, a: 1 } }])).toBeUndefined();
    expect(loops.record([{ id: '3', name: 'fs.read', args: { a: 1, b: 3 } }])).toBeUndefined();
    expect(loops.record([{ id: '4', name: 'fs.read', args: { b: 2, a: 1 } }])?.id).toBe('4');
  });
});

describe('StallDetector', () => {
  it('reports the same answer N turns running, and resets on a different one', () => {
    const stall = new StallDetector(3);
    expect([
      stall.observe('a'),
      stall.observe('a '),
      stall.observe('b'),
      stall.observe('b'),
      stall.observe('b'),
    ]).toEqual([false, false, false, false, true]);
  });
});

describe('stableKey', () => {
  it('sorts keys at every level', () => {
    expect(stableKey({ b: [{ d: 1, c: 2 }], a: null })).toBe('{"a":null,"b":[{"c":2,"d":1}]}');
  });
});
