import { afterEach, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../src/store/index.js';
import {
  Budget,
  Ledger,
  OVERDRAW_WAIT_MS,
  type BudgetSettings,
  type BudgetWindow,
} from '../../src/supervisor/index.js';
import type { CallerBudget } from '../../src/supervisor/budget/index.js';
import { tempDb } from '../helpers/arbor-process.js';

const stores: SqliteStore[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
});

function openStore(path = tempDb()): SqliteStore {
  const store = new SqliteStore(path);
  stores.push(store);
  return store;
}

function budget(settings: Partial<BudgetSettings> = {}, store = openStore()): Budget {
  return new Budget({ ceiling: {}, onExcess: 'clamp', windows: [], ...settings }, store);
}

function caller(id: string, extra: Partial<CallerBudget> = {}): CallerBudget {
  return { id, path: id, steps: 0, maxSteps: 50, deadlineAt: undefined, ...extra };
}

const usage = (tokens: number, cost_usd?: number) => ({
  input_tokens: tokens,
  output_tokens: 0,
  ...(cost_usd === undefined ? {} : { cost_usd }),
});

describe('Ledger', () => {
  it('folds usage into the node and every ancestor as it arrives', () => {
    const ledger = new Ledger();
    ledger.open('r', undefined, { tokens: 1000 });
    ledger.open('a', 'r', { tokens: 600 });
    ledger.open('b', 'a', {});
    ledger.record('b', usage(100, 0.5));
    ledger.record('a', usage(50));
    expect(ledger.subtree('b')).toEqual({ tokens: 100, usd: 0.5 });
    expect(ledger.subtree('a')).toEqual({ tokens: 150, usd: 0.5 });
    expect(ledger.subtree('r')).toEqual({ tokens: 150, usd: 0.5 });
    expect(ledger.remaining('b')).toEqual({ tokens: 450 });
  });

  it('refuses a call once any grant on the chain is spent, naming whose', () => {
    const ledger = new Ledger();
    ledger.open('r', undefined, { tokens: 1000 });
    ledger.open('a', 'r', { tokens: 100 });
    expect(ledger.admit('a', 10)).toEqual({ ok: true });
    ledger.record('a', usage(120));
    expect(ledger.admit('a', 10)).toMatchObject({
      ok: false,
      limit: 'tokens',
      nodeId: 'a',
      reason: 'token budget spent: 120 of 100 tokens used (its grant)',
    });
    // The root still has budget of its own.
    expect(ledger.admit('r', 10)).toEqual({ ok: true });
  });

  it('refuses on money as well as tokens', () => {
    const ledger = new Ledger();
    ledger.open('r', undefined, { usd: 1 });
    ledger.open('a', 'r', {});
    ledger.record('a', usage(10, 1.25));
    expect(ledger.admit('a', 10)).toMatchObject({
      ok: false,
      limit: 'usd',
      nodeId: 'r',
      reason: 'money budget spent: $1.2500 of $1.0000 used (the grant of r)',
    });
  });

  it('asks a call to wait while calls in flight could take what is left, and releases on usage', () => {
    const ledger = new Ledger();
    ledger.open('r', undefined, { tokens: 100 });
    ledger.open('a', 'r', {});
    ledger.open('b', 'r', {});
    expect(ledger.admit('a', 80)).toEqual({ ok: true });
    expect(ledger.inFlight('r')).toBe(80);
    expect(ledger.admit('b', 40)).toMatchObject({ ok: false, waitMs: OVERDRAW_WAIT_MS });
    ledger.record('a', usage(30));
    expect(ledger.inFlight('r')).toBe(0);
    expect(ledger.admit('b', 40)).toEqual({ ok: true });
  });

  it('admits a lone call even when its estimate is larger than what is left', () => {
    const ledger = new Ledger();
    ledger.open('r', undefined, { tokens: 100 });
    ledger.record('r', usage(90));
    expect(ledger.admit('r', 500)).toEqual({ ok: true });
  });

  it('releases what a node held when it ends', () => {
    const ledger = new Ledger();
    ledger.open('r', undefined, { tokens: 100 });
    ledger.open('a', 'r', {});
    ledger.admit('a', 60);
    ledger.close('a');
    expect(ledger.inFlight('r')).toBe(0);
  });
});

describe('Budget.share', () => {
  it('gives a child everything its caller has left by default', () => {
    const b = budget({ ceiling: { tokens: 1000, usd: 2 } });
    b.openRoot('r');
    b.record('r', usage(300, 0.5), 0);
    expect(b.share(caller('r', { steps: 4, maxSteps: 10 }), undefined, 0)).toEqual({
      ok: true,
      grant: { tokens: 700, usd: 1.5 },
      maxSteps: 6,
      deadlineMs: undefined,
    });
  });

  it('grants a smaller request as asked, and clamps a larger one to what is left', () => {
    const b = budget({ ceiling: { tokens: 1000 } });
    b.openRoot('r');
    const who = caller('r', { deadlineAt: 10_000 });
    expect(b.share(who, { tokens: 200, steps: 3, wall_ms: 1_000 }, 0)).toMatchObject({
      grant: { tokens: 200 },
      maxSteps: 3,
      deadlineMs: 1_000,
    });
    expect(b.share(who, { tokens: 5_000, steps: 500, wall_ms: 60_000 }, 4_000)).toMatchObject({
      grant: { tokens: 1000 },
      maxSteps: 50,
      deadlineMs: 6_000,
    });
  });

  it('counts what the caller granted to earlier children that they have spent', () => {
    const b = budget({ ceiling: { tokens: 1000 } });
    b.openRoot('r');
    b.open('a', 'r', { tokens: 400 });
    b.record('a', usage(350), 0);
    expect(b.share(caller('r'), undefined, 0)).toMatchObject({ grant: { tokens: 650 } });
    // A grandchild carved from `a` gets no more than `a` has left.
    expect(b.share(caller('a'), { tokens: 300 }, 0)).toMatchObject({ grant: { tokens: 50 } });
  });

  it('refuses a larger request when on_excess is refuse, naming what was left', () => {
    const b = budget({ ceiling: { tokens: 1000, usd: 1 }, onExcess: 'refuse' });
    b.openRoot('r');
    expect(b.share(caller('r'), { tokens: 1001 }, 0)).toEqual({
      ok: false,
      reason: 'budget: 1001 tokens asked, but node r has 1000 left (budget.on_excess = "refuse")',
    });
    expect(b.share(caller('r'), { usd: 3 }, 0)).toMatchObject({
      ok: false,
      reason: expect.stringContaining('3 usd asked, but node r has $1.0000 left') as unknown,
    });
    expect(b.share(caller('r', { steps: 48 }), { steps: 5 }, 0)).toMatchObject({ ok: false });
    expect(b.share(caller('r'), { tokens: 1000 }, 0)).toMatchObject({ ok: true });
  });

  it('refuses a child when the caller has nothing left on any axis', () => {
    const b = budget({ ceiling: { tokens: 100 } });
    b.openRoot('r');
    b.record('r', usage(100), 0);
    expect(b.share(caller('r'), undefined, 0)).toEqual({
      ok: false,
      reason: 'budget: node r has no tokens left to give',
    });
    const free = budget();
    free.openRoot('r');
    expect(free.share(caller('r', { steps: 50 }), undefined, 0)).toEqual({
      ok: false,
      reason: 'budget: node r has no model calls left to give',
    });
    expect(free.share(caller('r', { deadlineAt: 5 }), undefined, 5)).toEqual({
      ok: false,
      reason: 'budget: node r has no time left to give',
    });
  });
});

describe('Budget.admit', () => {
  it('says which limit refused, so the child ends with the matching status', () => {
    const b = budget({ ceiling: { tokens: 10 } });
    b.openRoot('r');
    b.record('r', usage(10), 0);
    expect(b.admit('r', 5, 0)).toMatchObject({ ok: false, limit: 'tokens' });
  });
});

describe('budget windows', () => {
  const HOUR = 3_600_000;
  const at = Date.UTC(2026, 11, 2, 10, 15);

  function withWindow(window: Partial<BudgetWindow>, store: SqliteStore): Budget {
    const b = budget({ windows: [{ per: 'hour', tactic: 'wait', ...window }] }, store);
    b.openRoot('r');
    return b;
  }

  it('counts requests durably: a reopened store never re-opens a spent window', () => {
    const path = tempDb();
    const first = openStore(path);
    const b = withWindow({ requests: 2, tactic: 'refuse' }, first);
    expect(b.admit('r', 10, at)).toEqual({ ok: true });
    b.record('r', usage(10), at);
    expect(b.admit('r', 10, at + 1)).toEqual({ ok: true });
    b.record('r', usage(10), at + 1);
    first.close();

    const again = withWindow({ requests: 2, tactic: 'refuse' }, openStore(path));
    expect(again.admit('r', 10, at + 2)).toEqual({
      ok: false,
      limit: 'window',
      reason: 'the 2 requests per hour budget is spent until 2026-12-02T11:00:00.000Z',
    });
    // The next hour is a new window.
    expect(again.admit('r', 10, at + HOUR)).toEqual({ ok: true });
  });

  it('waits for the next window under `wait`, as long as the window has left', () => {
    const b = withWindow({ tokens: 100 }, openStore());
    expect(b.admit('r', 60, at)).toEqual({ ok: true });
    b.record('r', usage(90), at);
    const answer = b.admit('r', 60, at + 1_000);
    // 45 minutes to the next window: the child waits a minute at most, then asks again.
    expect(answer).toEqual({ ok: false, wait_ms: 60_000 });
    const perMinute = budget({ windows: [{ per: 'minute', tokens: 100, tactic: 'wait' }] });
    perMinute.openRoot('r');
    perMinute.record('r', usage(100), at);
    expect(perMinute.admit('r', 1, at + 59_000)).toEqual({ ok: false, wait_ms: 1_000 });
    // The ledger released the refused call's hold: nothing is in flight.
    expect(b.ledger.inFlight('r')).toBe(0);
  });

  it('degrades to the cheaper model under `degrade` instead of refusing', () => {
    const b = withWindow({ requests: 1, tactic: 'degrade', degrade_model: 'small' }, openStore());
    expect(b.admit('r', 10, at)).toEqual({ ok: true });
    b.record('r', usage(10), at);
    expect(b.admit('r', 10, at + 1)).toEqual({ ok: true, model: 'small' });
  });

  it('shares a window between runs that declare the same limits', () => {
    const store = openStore();
    const one = withWindow({ requests: 1, tactic: 'refuse' }, store);
    const two = withWindow({ requests: 1, tactic: 'refuse' }, store);
    expect(one.admit('r', 1, at)).toEqual({ ok: true });
    expect(two.admit('r', 1, at)).toMatchObject({ ok: false, limit: 'window' });
  });
});
