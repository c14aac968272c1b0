import { describe, expect, it } from 'vitest';
import { Breaker } from '../../src/intel/index.js';
import { HealthRecorder } from '../../src/intel/endpoint-health.js';

const BREAKER = { threshold: 2, cooldown_ms: 5_000, cooldown_max_ms: 60_000 };

describe('HealthRecorder', () => {
  it('averages the latency of successes with weight 1/8 on the newest sample', () => {
    const health = new HealthRecorder(0, 'anthropic', 'https');
    const breaker = new Breaker(BREAKER);
    health.recordSuccess(1, 100);
    expect(health.snapshot(breaker, 1).ewmaLatencyMs).toBe(100);
    health.recordSuccess(2, 200);
    expect(health.snapshot(breaker, 2).ewmaLatencyMs).toBe(112.5);
    health.recordFailure(3, 'timeout');
    expect(health.snapshot(breaker, 3).ewmaLatencyMs).toBe(112.5);
  });

  it('reads the breaker’s state, failures and opening time into the snapshot', () => {
    const health = new HealthRecorder(2, 'openai', 'http');
    const breaker = new Breaker(BREAKER);
    for (const now of [10, 20]) {
      breaker.fail(breaker.admit(now)!, now);
      health.recordFailure(now, 'status_502');
    }
    expect(health.snapshot(breaker, 30)).toEqual({
      index: 2,
      dialect: 'openai',
      transport: 'http',
      state: 'open',
      consecutiveFailures: 2,
      totalCalls: 2,
      totalFailures: 2,
      ewmaLatencyMs: undefined,
      lastOkAt: undefined,
      lastErrorAt: 20,
      lastErrorKind: 'status_502',
      openedAt: 20,
      cooldownMs: 5_000,
    });
    expect(health.snapshot(breaker, 5_020).state).toBe('half_open');
  });
});
