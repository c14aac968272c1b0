import { describe, expect, it } from 'vitest';
import { Breaker } from '../../src/intel/index.js';

const SETTINGS = { threshold: 3, cooldown_ms: 5_000, cooldown_max_ms: 60_000 };
const T0 = 1_000_000;

/** Fails `n` ordinary calls at `now`. */
function failCalls(breaker: Breaker, n: number, now: number): void {
  for (let i = 0; i < n; i++) {
    const ticket = breaker.admit(now);
    if (ticket === undefined) throw new Error('expected the breaker to admit the call');
    breaker.fail(ticket, now);
  }
}

describe('Breaker', () => {
  it('stays closed below the threshold and opens on the threshold-th consecutive failure', () => {
    const breaker = new Breaker(SETTINGS);
    failCalls(breaker, 2, T0);
    expect(breaker.state(T0)).toBe('closed');
    expect(breaker.consecutiveFailures).toBe(2);
    failCalls(breaker, 1, T0);
    expect(breaker.state(T0)).toBe('open');
    expect(breaker.openedAt).toBe(T0);
    expect(breaker.admit(T0 + 1)).toBeUndefined();
  });

  it('counts only consecutive failures: a success in between resets the count', () => {
    const breaker = new Breaker(SETTINGS);
    failCalls(breaker, 2, T0);
    breaker.succeed();
    failCalls(breaker, 2, T0);
    expect(breaker.state(T0)).toBe('closed');
    expect(breaker.consecutiveFailures).toBe(2);
  });

  it('goes half-open after the cooldown and lets exactly one probe through', () => {
    const breaker = new Breaker(SETTINGS);
    failCalls(breaker, 3, T0);
    expect(breaker.state(T0 + 4_999)).toBe('open');
    expect(breaker.waitMs(T0 + 4_000)).toBe(1_000);
    expect(breaker.state(T0 + 5_000)).toBe('half_open');
    const probe = breaker.admit(T0 + 5_000);
    expect(probe?.isProbe).toBe(true);
    expect(breaker.admit(T0 + 5_001)).toBeUndefined();
    expect(breaker.admit(T0 + 9_000)).toBeUndefined();
  });

  it('closes on a successful probe and resets failures and cooldown', () => {
    const breaker = new Breaker(SETTINGS);
    failCalls(breaker, 3, T0);
    const probe = breaker.admit(T0 + 5_000)!;
    breaker.fail(probe, T0 + 5_000);
    expect(breaker.cooldownMs).toBe(10_000);
    const second = breaker.admit(T0 + 15_000)!;
    breaker.succeed();
    expect(second.isProbe).toBe(true);
    expect(breaker.state(T0 + 15_000)).toBe('closed');
    expect(breaker.consecutiveFailures).toBe(0);
    expect(breaker.cooldownMs).toBe(5_000);
    expect(breaker.admit(T0 + 15_000)?.isProbe).toBe(false);
  });

  it('re-opens on a failed probe with the cooldown doubled, up to the cap', () => {
    const breaker = new Breaker(SETTINGS);
    failCalls(breaker, 3, T0);
    let now = T0;
    const cooldowns: number[] = [];
    for (let i = 0; i < 6; i++) {
      now += breaker.cooldownMs;
      const probe = breaker.admit(now);
      expect(probe?.isProbe).toBe(true);
      breaker.fail(probe!, now);
      expect(breaker.state(now)).toBe('open');
      expect(breaker.openedAt).toBe(now);
      cooldowns.push(breaker.cooldownMs);
    }
    expect(cooldowns).toEqual([10_000, 20_000, 40_000, 60_000, 60_000, 60_000]);
  });

  it('lets another probe through once a probe is released without a verdict', () => {
    const breaker = new Breaker(SETTINGS);
    failCalls(breaker, 3, T0);
    const probe = breaker.admit(T0 + 5_000)!;
    breaker.release(probe);
    expect(breaker.state(T0 + 5_000)).toBe('half_open');
    expect(breaker.admit(T0 + 5_000)?.isProbe).toBe(true);
  });

  it('ignores late failures of calls admitted before it opened: no re-open, no longer cooldown', () => {
    const breaker = new Breaker(SETTINGS);
    const early = [breaker.admit(T0)!, breaker.admit(T0)!, breaker.admit(T0)!, breaker.admit(T0)!];
    for (const ticket of early.slice(0, 3)) breaker.fail(ticket, T0);
    breaker.fail(early[3]!, T0 + 4_000);
    expect(breaker.openedAt).toBe(T0);
    expect(breaker.cooldownMs).toBe(5_000);
    expect(breaker.state(T0 + 5_000)).toBe('half_open');
  });

  it('treats a probe overtaken by another call’s success as an ordinary call', () => {
    const breaker = new Breaker(SETTINGS);
    expect(breaker.admit(T0)?.isProbe).toBe(false); // a straggler, admitted while closed
    failCalls(breaker, 3, T0);
    const probe = breaker.admit(T0 + 5_000)!;
    breaker.succeed(); // the straggler came back fine
    breaker.fail(probe, T0 + 5_001);
    expect(breaker.state(T0 + 5_001)).toBe('closed');
    expect(breaker.consecutiveFailures).toBe(1);
  });

  it('uses the configured knobs', () => {
    const breaker = new Breaker({ threshold: 1, cooldown_ms: 100, cooldown_max_ms: 150 });
    failCalls(breaker, 1, T0);
    expect(breaker.state(T0)).toBe('open');
    breaker.fail(breaker.admit(T0 + 100)!, T0 + 100);
    expect(breaker.cooldownMs).toBe(150);
  });
});
