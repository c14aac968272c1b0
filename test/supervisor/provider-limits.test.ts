import { afterEach, describe, expect, it } from 'vitest';
import type { EndpointRef, IntelLimitsFrame } from '../../src/protocol/index.js';
import { SqliteStore } from '../../src/store/index.js';
import {
  Budget,
  IN_FLIGHT_WAIT_MS,
  ProviderLimits,
  type BudgetSettings,
} from '../../src/supervisor/budget/index.js';
import { tempDb } from '../helpers/arbor-process.js';

const stores: SqliteStore[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
});

const EP: EndpointRef = { index: 0, scope: '0123456789abcdef' };
const OTHER: EndpointRef = { index: 1, scope: 'fedcba9876543210' };
const T0 = 1_000_000;

function report(
  fields: Omit<IntelLimitsFrame, 'type' | 'endpoint'>,
  endpoint = EP,
): IntelLimitsFrame {
  return { type: 'intel_limits', endpoint, ...fields };
}

function budget(settings: Partial<BudgetSettings> = {}): Budget {
  const store = new SqliteStore(tempDb());
  stores.push(store);
  const b = new Budget({ ceiling: {}, onExcess: 'clamp', windows: [], ...settings }, store);
  b.openRoot('r');
  for (const id of ['a', 'b', 'c']) b.open(id, 'r', {});
  return b;
}

describe('ProviderLimits', () => {
  it('admits while the provider has requests left, counting calls in flight across nodes', () => {
    const limits = new ProviderLimits();
    limits.note('r', report({ requests: { limit: 3, remaining: 2, reset_ms: 1500 } }), T0);
    expect(limits.check(EP, 10, T0)).toEqual({ ok: true });
    limits.hold('a', EP, 10);
    expect(limits.check(EP, 10, T0)).toEqual({ ok: true });
    limits.hold('b', EP, 10);
    // Two calls in flight use what is left: the third waits for the reset, 1.5 s away.
    expect(limits.check(EP, 10, T0 + 100)).toMatchObject({
      ok: false,
      waitMs: 1400,
      limit: 'requests',
      endpoint: 0,
    });
    // Another provider account is not held back by this one.
    expect(limits.check(OTHER, 10, T0 + 100)).toEqual({ ok: true });
  });

  it('after the reset the limit is whole again, less what is still in flight', () => {
    const limits = new ProviderLimits();
    limits.note('r', report({ requests: { limit: 2, remaining: 0, reset_ms: 1000 } }), T0);
    expect(limits.check(EP, 1, T0 + 999)).toMatchObject({ ok: false, waitMs: 1 });
    expect(limits.check(EP, 1, T0 + 1000)).toEqual({ ok: true });
    limits.hold('a', EP, 1);
    limits.hold('b', EP, 1);
    // Whole (2) less two in flight, and no reset known: wait for the calls to report.
    expect(limits.check(EP, 1, T0 + 1001)).toMatchObject({ ok: false, waitMs: IN_FLIGHT_WAIT_MS });
    // A call's report releases its hold and says what is left now.
    limits.note('a', report({ requests: { limit: 2, remaining: 1, reset_ms: 900 } }), T0 + 1100);
    expect(limits.check(EP, 1, T0 + 1100)).toMatchObject({ ok: false, waitMs: 900 });
    limits.release('b');
    expect(limits.check(EP, 1, T0 + 1100)).toEqual({ ok: true });
  });

  it('a report that arrives late never raises what remains before the reset', () => {
    const limits = new ProviderLimits();
    limits.note('r', report({ requests: { limit: 3, remaining: 3, reset_ms: 1500 } }), T0);
    for (const id of ['a', 'b', 'c']) limits.hold(id, EP, 1);
    // The provider answered c last (nothing left) and a first, but their reports cross: c's
    // comes in before a's. a's older count must not let a fourth call through before the reset.
    limits.note('c', report({ requests: { limit: 3, remaining: 0, reset_ms: 1400 } }), T0 + 100);
    limits.note('a', report({ requests: { limit: 3, remaining: 2, reset_ms: 1450 } }), T0 + 110);
    expect(limits.check(EP, 1, T0 + 120)).toMatchObject({ ok: false, limit: 'requests' });
    // Once the reset passes, the next report is believed as it stands.
    expect(limits.check(EP, 1, T0 + 1500)).toEqual({ ok: true });
    limits.note('b', report({ requests: { limit: 3, remaining: 2, reset_ms: 1500 } }), T0 + 1600);
    expect(limits.check(EP, 1, T0 + 1600)).toEqual({ ok: true });
  });

  it('weighs the estimate against tokens and Anthropic’s input tokens', () => {
    const limits = new ProviderLimits();
    limits.note(
      'r',
      report({
        tokens: { limit: 10_000, remaining: 5000, reset_ms: 2000 },
        input_tokens: { limit: 8000, remaining: 3000, reset_ms: 4000 },
      }),
      T0,
    );
    expect(limits.check(EP, 2500, T0)).toEqual({ ok: true });
    limits.hold('a', EP, 2500);
    // 5000 − 2500 tokens left covers 2000; 3000 − 2500 input tokens does not: the later reset.
    expect(limits.check(EP, 2000, T0)).toMatchObject({
      ok: false,
      limit: 'input_tokens',
      waitMs: 4000,
    });
    expect(limits.check(EP, 400, T0)).toEqual({ ok: true });
  });

  it('never holds back a call larger than a whole limit, nor one with nothing known', () => {
    const limits = new ProviderLimits();
    limits.note('r', report({ tokens: { limit: 1000, remaining: 10, reset_ms: 5000 } }), T0);
    expect(limits.check(EP, 5000, T0)).toEqual({ ok: true });
    expect(limits.check(undefined, 5000, T0)).toEqual({ ok: true });
    // Nothing left, no reset said and nothing in flight: the provider decides.
    limits.note('r', report({ requests: { remaining: 0 } }), T0);
    expect(limits.check(EP, 1, T0)).toEqual({ ok: true });
  });

  it('caps one wait at a minute; the call asks again after it', () => {
    const limits = new ProviderLimits();
    limits.note('r', report({ requests: { limit: 9, remaining: 0, reset_ms: 3_600_000 } }), T0);
    expect(limits.check(EP, 1, T0)).toMatchObject({ ok: false, waitMs: 60_000 });
  });
});

describe('Budget admission by the provider’s limits', () => {
  it('answers "wait until the reset", then admits once it has passed', () => {
    const b = budget();
    b.noteProviderLimits('r', report({ requests: { limit: 2, remaining: 1, reset_ms: 3000 } }), T0);
    expect(b.admit('a', 100, T0, EP)).toEqual({ ok: true });
    expect(b.admit('b', 100, T0 + 500, EP)).toEqual({
      ok: false,
      wait_ms: 2500,
      providerWait: { endpoint: 0, limit: 'requests' },
    });
    // The refused call holds nothing in the ledger.
    expect(b.ledger.inFlight('r')).toBe(100);
    expect(b.admit('b', 100, T0 + 3000, EP)).toEqual({ ok: true });
  });

  it('releases a call’s hold when its usage arrives or its node ends', () => {
    const b = budget();
    b.noteProviderLimits('r', report({ requests: { limit: 5, remaining: 1, reset_ms: 3000 } }), T0);
    expect(b.admit('a', 10, T0, EP)).toEqual({ ok: true });
    expect(b.admit('b', 10, T0, EP)).toMatchObject({ ok: false });
    b.record('a', { input_tokens: 10, output_tokens: 1 }, T0);
    expect(b.admit('b', 10, T0, EP)).toEqual({ ok: true });
    expect(b.admit('c', 10, T0, EP)).toMatchObject({ ok: false });
    b.close('b');
    expect(b.admit('c', 10, T0, EP)).toEqual({ ok: true });
  });

  it('with `provider_limits = "ignore"` admits whatever the provider said', () => {
    const b = budget({ providerLimits: 'ignore' });
    b.noteProviderLimits('r', report({ requests: { limit: 2, remaining: 0, reset_ms: 3000 } }), T0);
    expect(b.admit('a', 100, T0, EP)).toEqual({ ok: true });
  });
});
