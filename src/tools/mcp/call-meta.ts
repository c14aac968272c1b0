import type { CallMeta } from '../tool.js';

/**
 * The `_meta` keys arbor stamps on every `tools/call`. The `arbor/` prefix follows MCP's rule for
 * `_meta` key names (a reverse-DNS-like label and a slash) so they cannot clash with another
 * client's keys; `traceparent` is the W3C trace context under its own name, where MCP tracing
 * conventions put it.
 */
export const MCP_META_KEYS = {
  runId: 'arbor/run_id',
  nodeId: 'arbor/node_id',
  traceparent: 'traceparent',
  /** Stable for one call of one node: a server can recognise a call replayed after a crash. */
  idempotencyKey: 'arbor/idempotency_key',
} as const;

/** The request `_meta` for a call, or `undefined` when the call carries no correlation. */
export function toMcpMeta(meta: CallMeta | undefined): Record<string, string> | undefined {
  if (meta === undefined) return undefined;
  return {
    [MCP_META_KEYS.runId]: meta.runId,
    [MCP_META_KEYS.nodeId]: meta.nodeId,
    ...(meta.traceparent === undefined ? {} : { [MCP_META_KEYS.traceparent]: meta.traceparent }),
    [MCP_META_KEYS.idempotencyKey]: meta.idempotencyKey,
  };
}
