import type { EndpointHealth, RateLimitReport } from '../intel/model.js';
import type { EndpointRef, IntelLimitsFrame, RateLimitAxis } from '../protocol/index.js';
import type { RateLimitReading } from '../intel/rate-limit-headers.js';

function axis(reading: RateLimitReading | undefined, at: number): RateLimitAxis | undefined {
  if (reading === undefined) return undefined;
  return {
    ...(reading.limit === undefined ? {} : { limit: reading.limit }),
    remaining: reading.remaining,
    ...(reading.resetAt === undefined ? {} : { reset_ms: Math.max(0, reading.resetAt - at) }),
  };
}

/**
 * The `intel_limits` frame for what a response said of its provider's limits. Resets travel as
 * durations from the response, so the supervisor places them on its own clock.
 */
export function intelLimitsFrame(report: RateLimitReport): IntelLimitsFrame {
  const frame: IntelLimitsFrame = {
    type: 'intel_limits',
    endpoint: { index: report.endpoint, scope: report.scope },
  };
  for (const name of ['requests', 'tokens', 'input_tokens', 'output_tokens'] as const) {
    const read = axis(report.limits[name], report.at);
    if (read !== undefined) frame[name] = read;
  }
  return frame;
}

/**
 * The endpoint the next call will try first: the first in list order whose breaker is not open
 * (the pool's own order), or `undefined` when none is usable or none has a scope.
 */
export function nextEndpoint(health: readonly EndpointHealth[]): EndpointRef | undefined {
  const first = health.find((h) => h.state !== 'open');
  return first?.scope === undefined ? undefined : { index: first.index, scope: first.scope };
}
