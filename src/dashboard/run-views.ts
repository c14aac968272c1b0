import { addUsage, ZERO_USAGE } from '../loop/index.js';
import {
  fromStoredEvent,
  toEventLine,
  type EventLine,
  type NodeView,
  type RunSummary,
  type Usage,
} from '../protocol/index.js';
import type { EventRecord, NodeRecord, RunRecord } from '../supervisor/index.js';

/**
 * Runs, nodes and events as `arbor runs` and the dashboard show them, built from the store's
 * records (their shapes are in `src/protocol/run-views.ts`).
 */

const iso = (ms: number): string => new Date(ms).toISOString();

/** A run in a line: status, times, size and what it used (every node's own usage summed). */
export function summarize(run: RunRecord, nodes: readonly NodeRecord[]): RunSummary {
  const total = nodes.reduce((sum, node) => addUsage(sum, node.usage), ZERO_USAGE);
  return {
    run_id: run.id,
    status: run.status,
    instruction: run.instruction,
    created_at: new Date(run.createdAt).toISOString(),
    ...(run.endedAt === undefined
      ? {}
      : {
          ended_at: new Date(run.endedAt).toISOString(),
          duration_ms: run.endedAt - run.createdAt,
        }),
    nodes: nodes.length,
    // The totals, the cache and reasoning splits where reported, the cost where known.
    ...total,
  };
}

/**
 * When each parked node parked: its last `node.parked` event. The events are read only when a
 * node is parked.
 */
export function parkedSince(
  nodes: readonly NodeRecord[],
  events: () => readonly EventRecord[],
): Map<string, number> {
  const since = new Map<string, number>();
  if (!nodes.some((node) => node.status === 'parked')) return since;
  for (const event of events())
    if (event.kind === 'node.parked' && event.nodeId !== undefined)
      since.set(event.nodeId, event.ts);
  return since;
}

/**
 * Every node with its own and its subtree's usage (summed here, for nodes still going too), and
 * when it parked if it lies parked (`parked`, from `parkedSince`).
 */
export function nodeViews(
  nodes: readonly NodeRecord[],
  parked: ReadonlyMap<string, number> = new Map(),
): NodeView[] {
  const children = new Map<string, NodeRecord[]>();
  for (const node of nodes) {
    if (node.parentId === undefined) continue;
    children.set(node.parentId, [...(children.get(node.parentId) ?? []), node]);
  }
  const subtree = (node: NodeRecord): Usage =>
    (children.get(node.id) ?? []).reduce((sum, child) => addUsage(sum, subtree(child)), node.usage);
  return nodes.map((node) => ({
    node_id: node.id,
    path: node.path,
    ...(node.parentId === undefined ? {} : { parent_id: node.parentId }),
    depth: node.depth,
    provider: node.provider,
    status: node.status,
    instruction: node.instruction,
    ...(node.startedAt === undefined ? {} : { started_at: iso(node.startedAt) }),
    ...(node.endedAt === undefined ? {} : { ended_at: iso(node.endedAt) }),
    ...(node.endedAt === undefined
      ? {}
      : { duration_ms: node.endedAt - (node.startedAt ?? node.createdAt) }),
    usage: node.usage,
    subtree_usage: subtree(node),
    ...(node.outcome === undefined ? {} : { result: node.outcome.result }),
    ...(node.outcome?.reason === undefined ? {} : { reason: node.outcome.reason }),
    ...parkedView(node, parked),
  }));
}

function parkedView(
  node: NodeRecord,
  parked: ReadonlyMap<string, number>,
): { parked_since?: string } {
  const since = node.status === 'parked' ? parked.get(node.id) : undefined;
  return since === undefined ? {} : { parked_since: iso(since) };
}

/**
 * An event as the NDJSON line `--events ndjson` writes, from its stored record. A kind this arbor
 * does not know is an `event.unknown` line (its stored `name` and `fields`), as the API gives it.
 */
export function wireLine(
  runId: string,
  record: EventRecord,
  paths: ReadonlyMap<string, string>,
): EventLine {
  const path = record.nodeId === undefined ? undefined : paths.get(record.nodeId);
  return toEventLine(fromStoredEvent(record, runId, path));
}
