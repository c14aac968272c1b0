import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import {
  callSignal,
  LiveNode,
  outcomeOf,
  Tree,
  type ChildEnd,
} from '../../src/supervisor/index.js';
import { testPayload } from '../helpers/payloads.js';

/** Collects the process warnings emitted while `body` runs (and the tick after it). */
async function warningsDuring(body: () => Promise<void>): Promise<Error[]> {
  const warnings: Error[] = [];
  const collect = (warning: Error): void => {
    warnings.push(warning);
  };
  process.on('warning', collect);
  try {
    await body();
    // Warnings are emitted on the next tick.
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off('warning', collect);
  }
  return warnings;
}

function liveNodes(count: number): { caller: LiveNode; children: LiveNode[] } {
  const tree = new Tree();
  const root = tree.mintRoot('Fan out.', Date.now());
  const caller = new LiveNode(root, testPayload(), 'root', 'process');
  const children = Array.from(
    { length: count },
    (_, i) =>
      new LiveNode(
        tree.mintChild(root.id, `Leaf ${i}`, Date.now()),
        testPayload(),
        'sync',
        'process',
      ),
  );
  return { caller, children };
}

function end(): ChildEnd {
  return {
    outcome: outcomeOf('completed', 'done', undefined),
    via: 'result',
    exit: { code: 0, signal: null },
  };
}

describe('waits on a node’s stop signal', () => {
  it('share one listener: sixteen sub-agents awaited at once raise no warning, and none is left', async () => {
    const { caller, children } = liveNodes(16);
    const signal = caller.stopped.signal;
    const warnings = await warningsDuring(async () => {
      const waits = children.map((child) => child.waitFor({ signal }));
      expect(getEventListeners(signal, 'abort')).toHaveLength(1);
      for (const child of children) child.markEnded(end());
      expect(await Promise.all(waits)).toHaveLength(16);
    });
    expect(warnings.map((w) => w.name)).toEqual([]);
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
  });

  it('all wake when the caller stops, and leave no listener behind', async () => {
    const { caller, children } = liveNodes(12);
    const signal = caller.stopped.signal;
    const waits = children.map((child) => child.waitFor({ signal }));
    caller.stopped.abort('stopped');
    expect(await Promise.all(waits)).toEqual(children.map(() => undefined));
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
  });
});

describe('callSignal', () => {
  it('aborts with the parent’s reason, and a released call stops listening', () => {
    const parent = new AbortController();
    const calls = Array.from({ length: 12 }, () => callSignal(parent.signal));
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(1);
    const released = calls.pop();
    released?.release();
    parent.abort('the node ended');
    expect(calls.map((call) => call.signal.reason as unknown)).toEqual(
      calls.map(() => 'the node ended'),
    );
    expect(released?.signal.aborted).toBe(false);
  });

  it('returns to no listener once every call is released', () => {
    const parent = new AbortController();
    const calls = Array.from({ length: 3 }, () => callSignal(parent.signal));
    for (const call of calls) call.release();
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(0);
  });
});
