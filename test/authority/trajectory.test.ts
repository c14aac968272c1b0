import { describe, expect, it } from 'vitest';
import {
  CHILD_RISK_DAMPING,
  RISK_DECAY_PER_STEP,
  Trajectory,
  childSeed,
  egressHold,
  inheritedTrajectory,
  knownTrajectory,
} from '../../src/authority/index.js';
import type { RuntimeTrifecta } from '../../src/protocol/index.js';

const ASK: RuntimeTrifecta = { mode: 'ask', sensitive_paths: [], risk_ask_at: 0.8 };

describe('Trajectory', () => {
  it('becomes exposed and sensitive once, keeping the first source of each', () => {
    const t = new Trajectory();
    expect(t.observe({ kind: 'exposed', source: 'http.fetch a' })).toBe(true);
    expect(t.observe({ kind: 'exposed', source: 'http.fetch b' })).toBe(false);
    t.observe({ kind: 'sensitive', source: 'fs.read .env' });
    expect(t.snapshot()).toEqual({
      exposed: true,
      sensitive: true,
      risk: 0,
      exposed_by: 'http.fetch a',
      sensitive_by: 'fs.read .env',
    });
  });

  it('raises risk with flags, refusals and repeated failures, within 0 and 1, and decays per step', () => {
    const t = new Trajectory();
    t.observe({ kind: 'flagged' });
    expect(t.risk).toBeCloseTo(0.3);
    t.observe({ kind: 'flagged' });
    expect(t.risk).toBeCloseTo(0.51);
    for (let i = 0; i < 50; i += 1) t.observe({ kind: 'refused' });
    expect(t.risk).toBeLessThanOrEqual(1);
    const before = t.risk;
    t.step();
    expect(t.risk).toBeCloseTo(before * RISK_DECAY_PER_STEP);
    const failing = new Trajectory();
    failing.observe({ kind: 'failed' });
    failing.observe({ kind: 'failed' });
    const two = failing.risk;
    failing.observe({ kind: 'failed' });
    // The third failure in a row counts for more than the second did.
    expect(failing.risk - two).toBeGreaterThan(two / 2 + 0.1);
  });

  it('starts from a seed: a spawn is not a free reset', () => {
    const parent = new Trajectory();
    parent.observe({ kind: 'exposed', source: 'web' });
    parent.observe({ kind: 'flagged' });
    const seed = childSeed(parent.snapshot());
    expect(seed).toEqual({
      risk_seed: 0.3 * CHILD_RISK_DAMPING,
      inherited_taint: { exposed: true, sensitive: false },
    });
    const child = new Trajectory({ risk: seed.risk_seed, taint: seed.inherited_taint });
    expect(child.exposed).toBe(true);
    expect(child.risk).toBeCloseTo(0.15);
  });
});

describe('egressHold', () => {
  const state = (exposed: boolean, sensitive: boolean, risk = 0) => ({ exposed, sensitive, risk });
  it.each([
    [state(false, false), false],
    [state(true, false), false],
    [state(false, true), false],
    [state(true, true), true],
    [state(false, false, 0.8), true],
    [state(false, false, 0.79), false],
  ])('%j held: %s', (s, held) => {
    expect(egressHold(s, ASK) !== undefined).toBe(held);
  });

  it('never holds with the rule off', () => {
    expect(egressHold(state(true, true, 1), { ...ASK, mode: 'off' })).toBeUndefined();
  });
});

describe('knownTrajectory and inheritedTrajectory', () => {
  it('take the latest report, or the seed before one came', () => {
    const reported = { exposed: true, sensitive: false, risk: 0.4 };
    expect(knownTrajectory(reported, { risk_seed: 0.9 })).toBe(reported);
    expect(
      knownTrajectory(undefined, {
        risk_seed: 1.5,
        inherited_taint: { exposed: false, sensitive: true },
      }),
    ).toEqual({ exposed: false, sensitive: true, risk: 1 });
    expect(knownTrajectory(undefined, {})).toEqual({ exposed: false, sensitive: false, risk: 0 });
  });

  it('hand a child the damped score and the taint, leaving out what says nothing', () => {
    expect(inheritedTrajectory({ exposed: true, sensitive: false, risk: 0.5 })).toEqual({
      risk_seed: 0.25,
      inherited_taint: { exposed: true, sensitive: false },
    });
    expect(inheritedTrajectory({ exposed: false, sensitive: false, risk: 0 })).toEqual({});
  });
});
