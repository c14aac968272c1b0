import { describe, expect, it } from 'vitest';
import { ServeMetrics } from '../../src/serve/serve-metrics.js';

const base = { ts: '2026-01-01T00:00:00.000Z', runId: 'r1', nodeId: 'n1', path: '0.1' };

describe('rate-limit waits in the metrics', () => {
  it('counts each wait by endpoint and limit, and observes how long it was', async () => {
    const metrics = new ServeMetrics();
    metrics.observe({
      ...base,
      type: 'intel.rate_wait',
      endpoint: 0,
      limit: 'requests',
      waitedMs: 1500,
    });
    metrics.observe({
      ...base,
      type: 'intel.rate_wait',
      endpoint: 0,
      limit: 'requests',
      waitedMs: 300,
    });
    metrics.observe({
      ...base,
      type: 'intel.rate_wait',
      endpoint: 1,
      limit: 'input_tokens',
      waitedMs: 7000,
    });
    const { body } = await metrics.text();
    expect(body).toMatch(/^arbor_intel_rate_waits_total\{endpoint="0",limit="requests"\} 2$/m);
    expect(body).toMatch(/^arbor_intel_rate_waits_total\{endpoint="1",limit="input_tokens"\} 1$/m);
    expect(body).toMatch(/^arbor_intel_rate_wait_seconds_sum\{limit="requests"\} 1\.8$/m);
    expect(body).toMatch(/^arbor_intel_rate_wait_seconds_bucket\{le="0\.5",limit="requests"\} 1$/m);
    expect(body).toMatch(/^arbor_intel_rate_wait_seconds_count\{limit="input_tokens"\} 1$/m);
  });
});
