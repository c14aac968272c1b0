import { createHash } from 'node:crypto';

/**
 * W3C trace context ids for a run, derived from its run id: the run's trace id, and a span id per
 * node. Being derived, they are known before any span exists (the supervisor mints a node's
 * `traceparent` into its payload before the node starts) and the same after a resume, so a
 * resumed run continues its trace. A run started under a caller's trace (an A2A request that
 * carried `traceparent`) takes that trace id instead.
 */
export function traceIdOf(runId: string): string {
  return hex(runId).slice(0, 32);
}

/** The span id of a run's node (`n0`, `n3`) or of the run itself (`run`). */
export function spanIdOf(runId: string, key: string): string {
  return hex(`${runId}/${key}`).slice(0, 16);
}

export function formatTraceparent(traceId: string, spanId: string): string {
  return `00-${traceId}-${spanId}-01`;
}

/** A `traceparent` header's trace and parent span ids, or undefined when it is not one. */
export function parseTraceparent(
  text: string | undefined,
): { traceId: string; spanId: string } | undefined {
  const match = /^00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$/.exec(text?.trim() ?? '');
  if (match?.[1] === undefined || match[2] === undefined) return undefined;
  if (/^0+$/.test(match[1]) || /^0+$/.test(match[2])) return undefined;
  return { traceId: match[1], spanId: match[2] };
}

/** A node's `traceparent`: the run's trace, the node's own span. */
export function nodeTraceparent(runTraceparent: string, runId: string, nodeId: string): string {
  const run = parseTraceparent(runTraceparent);
  return formatTraceparent(run?.traceId ?? traceIdOf(runId), spanIdOf(runId, nodeId));
}

function hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
