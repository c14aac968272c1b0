import { describe, expect, it } from 'vitest';
import { AllDownLatch } from '../../src/intel/all-down-latch.js';
import type { IntelHealthEvent } from '../../src/intel/index.js';

const ACTIVE = { index: 1, transport: 'https' as const };

function latchWithLog(): { latch: AllDownLatch; events: IntelHealthEvent[] } {
  const latch = new AllDownLatch();
  const events: IntelHealthEvent[] = [];
  latch.subscribe((event) => events.push(event));
  return { latch, events };
}

describe('AllDownLatch', () => {
  it('reports each edge once, however many sweeps fail or calls succeed', () => {
    const { latch, events } = latchWithLog();
    for (let i = 0; i < 5; i++) latch.markExhausted(latch.epoch);
    for (let i = 0; i < 5; i++) latch.markSuccess(ACTIVE);
    for (let i = 0; i < 5; i++) latch.markExhausted(latch.epoch);
    expect(events).toEqual([
      { allDown: true },
      { allDown: false, active: ACTIVE },
      { allDown: true },
    ]);
  });

  it('does not declare all down for a sweep that a later success has contradicted', () => {
    const { latch, events } = latchWithLog();
    latch.markExhausted(latch.epoch);
    const staleEpoch = latch.epoch;
    latch.markSuccess(ACTIVE);
    latch.markExhausted(staleEpoch);
    expect(events).toEqual([{ allDown: true }, { allDown: false, active: ACTIVE }]);
    expect(latch.isDown).toBe(false);
  });

  it('says nothing on a success when nothing was down', () => {
    const { latch, events } = latchWithLog();
    latch.markSuccess(ACTIVE);
    expect(events).toEqual([]);
  });

  it('stops telling a listener once it unsubscribes', () => {
    const latch = new AllDownLatch();
    const events: IntelHealthEvent[] = [];
    const unsubscribe = latch.subscribe((event) => events.push(event));
    unsubscribe();
    latch.markExhausted(latch.epoch);
    expect(events).toEqual([]);
  });
});
