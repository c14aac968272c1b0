import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { sleep } from '../../src/supervisor/index.js';

describe('sleep', () => {
  it('resolves once the time has passed', async () => {
    const started = performance.now();
    await sleep(30);
    expect(performance.now() - started).toBeGreaterThanOrEqual(25);
  });

  it('resolves as soon as its signal aborts, without an error', async () => {
    const controller = new AbortController();
    const started = performance.now();
    const waiting = sleep(60_000, { signal: controller.signal });
    controller.abort(new Error('stop'));
    await expect(waiting).resolves.toBeUndefined();
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('does not wait at all on a signal that has already aborted', async () => {
    const started = performance.now();
    await sleep(60_000, { signal: AbortSignal.abort() });
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('adds one listener to a signal however many waits share it, and none once they end', async () => {
    const controller = new AbortController();
    const waits = Array.from({ length: 20 }, () => sleep(60_000, { signal: controller.signal }));
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    controller.abort();
    await Promise.all(waits);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    const done = new AbortController();
    await sleep(1, { signal: done.signal });
    expect(getEventListeners(done.signal, 'abort')).toHaveLength(0);
  });
});
