import { afterEach, describe, expect, it } from 'vitest';
import { intelLimitsFrame, nextEndpoint } from '../../src/child/rate-limit-frames.js';
import { createModelClient, type RateLimitReport } from '../../src/intel/index.js';
import type { EndpointHealth } from '../../src/intel/model.js';
import { IntelLimitsFrameSchema } from '../../src/protocol/index.js';
import { FakeServers, USER_HELLO, intelConfig } from '../helpers/intel.js';

const servers = new FakeServers();
afterEach(() => servers.closeAll());

const SCOPE = '0123456789abcdef';

describe('intel_limits frames', () => {
  it('carry each limit with its reset as a duration from the response', () => {
    const frame = intelLimitsFrame({
      endpoint: 1,
      scope: SCOPE,
      at: 10_000,
      limits: {
        requests: { limit: 50, remaining: 49, resetAt: 10_120 },
        input_tokens: { remaining: 3000 },
        // A reset already past by the time it was read: whole now.
        tokens: { limit: 9, remaining: 9, resetAt: 9_000 },
      },
    });
    expect(frame).toEqual({
      type: 'intel_limits',
      endpoint: { index: 1, scope: SCOPE },
      requests: { limit: 50, remaining: 49, reset_ms: 120 },
      tokens: { limit: 9, remaining: 9, reset_ms: 0 },
      input_tokens: { remaining: 3000 },
    });
    expect(IntelLimitsFrameSchema.parse(frame)).toEqual(frame);
  });

  it('never carry the endpoint’s address or credential', async () => {
    const server = await servers.start({
      rate_limit: { requests: 5, window_ms: 60_000 },
      scripts: [{ steps: [{ text: 'hi' }] }],
    });
    const key = 'sk-test-0123456789abcdefSECRET';
    const reports: RateLimitReport[] = [];
    const client = createModelClient(intelConfig([{ url: server.url, api_key: key }]), {
      onRateLimit: (r) => reports.push(r),
    });
    await client.generate(USER_HELLO);
    expect(reports).toHaveLength(1);
    const wire = JSON.stringify([intelLimitsFrame(reports[0]!), nextEndpoint(client.health())]);
    for (const secret of [key, server.url, server.origin, String(server.port), '127.0.0.1'])
      expect(wire).not.toContain(secret);
  });
});

describe('nextEndpoint', () => {
  const health = (index: number, state: EndpointHealth['state'], scope?: string) =>
    ({ index, state, ...(scope === undefined ? {} : { scope }) }) as EndpointHealth;

  it('names the first endpoint whose breaker is not open, as the pool would try it', () => {
    expect(
      nextEndpoint([health(0, 'open', 'a'.repeat(16)), health(1, 'half_open', SCOPE)]),
    ).toEqual({ index: 1, scope: SCOPE });
    expect(nextEndpoint([health(0, 'closed', SCOPE), health(1, 'closed', 'b'.repeat(16))])).toEqual(
      { index: 0, scope: SCOPE },
    );
  });

  it('is undefined when every breaker is open', () => {
    expect(nextEndpoint([health(0, 'open', SCOPE)])).toBeUndefined();
  });
});
