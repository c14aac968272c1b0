import { describe, expect, it } from 'vitest';
import { admitOverChannel } from '../../src/child/admission.js';
import type { ControlChannel } from '../../src/child/control-channel.js';
import type { FrameWriter } from '../../src/child/frame-writer.js';
import { Hold } from '../../src/child/hold.js';
import { InjectQueue } from '../../src/child/inject-queue.js';
import { ReplySlots } from '../../src/child/reply-slots.js';
import type { AgentFrame, ControlFrame } from '../../src/protocol/index.js';

describe('ReplySlots', () => {
  it('matches answers to requests by id, in any order', async () => {
    const slots = new ReplySlots<string>();
    const sent: number[] = [];
    const a = slots.request('a', (id) => sent.push(id));
    const b = slots.request('b', (id) => sent.push(id));
    expect(sent).toEqual([1, 2]);
    expect(slots.settle(2, 'two')).toBe(true);
    expect(slots.settle(1, 'one')).toBe(true);
    await expect(Promise.all([a, b])).resolves.toEqual(['one', 'two']);
    expect(slots.settle(1, 'late')).toBe(false);
  });

  it('times out, honours its signal, and wakes every waiter when the channel closes', async () => {
    const slots = new ReplySlots<string>();
    await expect(
      slots.request('tool `x`', () => undefined, { timeoutMs: 10 }),
    ).rejects.toMatchObject({
      code: 'timeout',
      message: 'tool `x` got no answer from the supervisor within 10 ms',
    });
    const controller = new AbortController();
    const aborted = slots.request('y', () => undefined, { signal: controller.signal });
    controller.abort();
    await expect(aborted).rejects.toMatchObject({ code: 'cancelled' });
    const waiting = [slots.request('p', () => undefined), slots.request('q', () => undefined)];
    slots.closeAll('the control channel closed');
    for (const w of waiting)
      await expect(w).rejects.toMatchObject({
        code: 'cancelled',
        message: 'the control channel closed',
      });
    await expect(slots.request('after', () => undefined)).rejects.toMatchObject({
      code: 'cancelled',
    });
    expect(slots.size).toBe(0);
  });
});

describe('InjectQueue', () => {
  it('keeps messages in order while nobody waits, and wakes a waiter on close', async () => {
    const queue = new InjectQueue();
    const signal = new AbortController().signal;
    queue.push('one');
    queue.push('two');
    const waiting = (async () => [
      await queue.next(signal),
      await queue.next(signal),
      await queue.next(signal),
    ])();
    await Promise.resolve();
    queue.push('three');
    await expect(waiting).resolves.toEqual(['one', 'two', 'three']);
    const last = queue.next(signal);
    queue.close();
    await expect(last).resolves.toBeUndefined();
  });
});

describe('Hold', () => {
  it('holds while paused, and releases on resume or on cancel', async () => {
    const hold = new Hold();
    const controller = new AbortController();
    await hold.wait(controller.signal);
    hold.pause();
    let released = false;
    const waiting = hold.wait(controller.signal).then(() => (released = true));
    await Promise.resolve();
    expect(released).toBe(false);
    hold.resume();
    await waiting;
    hold.pause();
    const cancelled = hold.wait(controller.signal);
    controller.abort();
    await cancelled;
    expect(hold.paused).toBe(true);
  });
});

describe('admitOverChannel', () => {
  type Grant = Extract<ControlFrame, { type: 'budget_grant' }>;

  /** A channel whose supervisor answers each `budget_request` with the next scripted grant. */
  function scripted(answers: Omit<Grant, 'type' | 'id'>[]) {
    const budgetReplies = new ReplySlots<Grant>();
    const asked: number[] = [];
    const writer = {
      send(frame: AgentFrame) {
        if (frame.type !== 'budget_request') return;
        asked.push(frame.estimate);
        const answer = answers.shift();
        if (answer !== undefined)
          queueMicrotask(() =>
            budgetReplies.settle(frame.id, { type: 'budget_grant', id: frame.id, ...answer }),
          );
      },
    };
    const admit = admitOverChannel(
      { budgetReplies } as unknown as ControlChannel,
      writer as unknown as FrameWriter,
    );
    return { admit, asked };
  }

  it('waits as told and asks again, then goes on the model it is given', async () => {
    const { admit, asked } = scripted([
      { ok: false, wait_ms: 5 },
      { ok: false, wait_ms: 5 },
      { ok: true, model: 'small-model' },
    ]);
    await expect(admit(120, { signal: new AbortController().signal })).resolves.toEqual({
      model: 'small-model',
    });
    expect(asked).toEqual([120, 120, 120]);
  });

  it('turns a refusal into budget_refused carrying the spent limit', async () => {
    const { admit } = scripted([{ ok: false, reason: 'token budget spent', limit: 'tokens' }]);
    await expect(admit(1, { signal: new AbortController().signal })).rejects.toMatchObject({
      code: 'budget_refused',
      message: 'token budget spent',
      details: { limit: 'tokens' },
    });
  });

  it('stops waiting when cancelled', async () => {
    const { admit } = scripted([{ ok: false, wait_ms: 60_000 }]);
    const controller = new AbortController();
    const pending = admit(1, { signal: controller.signal });
    await Promise.resolve();
    await Promise.resolve();
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: 'cancelled' });
  });
});
