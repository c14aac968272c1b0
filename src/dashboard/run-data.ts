import {
  shownTranscript,
  type NodeDetail,
  type RunDetail,
  type RunSummary,
  type WireEvent,
} from '../protocol/index.js';
import type { SqliteStore } from '../store/index.js';
import type { NodeRecord } from '../supervisor/index.js';
import { parseTraceparent } from '../protocol/trace-ids.js';
import { nodeViews, parkedSince, summarize, wireLine } from './run-views.js';

/**
 * What the dashboard's pages read, from the store, in the field names of the events and the store
 * (`run_id`, `path`, `status`, …), the same as `arbor runs --json`.
 */

export interface RunsQuery {
  status?: string;
  search?: string;
  /** Only the runs of this `arbor serve` principal's tasks. */
  owner?: string;
  limit: number;
}

export function runsList(store: SqliteStore, query: RunsQuery): RunSummary[] {
  return store
    .listRuns({
      ...(query.status === undefined ? {} : { status: query.status }),
      ...(query.search === undefined ? {} : { search: query.search }),
      ...(query.owner === undefined ? {} : { owner: query.owner }),
      limit: query.limit,
    })
    .map((run) => summarize(run, store.listNodes(run.id)));
}

/** A run, its tree and its open questions; undefined when the store has no such run. */
export function runDetail(
  store: SqliteStore,
  runId: string,
  traceUrl: string | undefined,
): RunDetail | undefined {
  const run = store.getRun(runId);
  if (run === undefined) return undefined;
  const nodes = store.listNodes(runId);
  const root = nodes.find((node) => node.parentId === undefined);
  const traceId = parseTraceparent(root?.payload.telemetry.traceparent)?.traceId;
  return {
    ...summarize(run, nodes),
    nodes: nodeViews(
      nodes,
      parkedSince(nodes, () => store.listEvents(runId)),
    ),
    gates: store.listGates({ runId, status: 'open' }).map((gate) => ({
      gate: gate.id,
      ...(gate.nodeId === undefined ? {} : { node_id: gate.nodeId }),
      question: gate.question,
      payload: gate.payload,
      created_at: new Date(gate.createdAt).toISOString(),
    })),
    ...(traceId === undefined ? {} : { trace_id: traceId }),
    ...(traceId === undefined || traceUrl === undefined
      ? {}
      : { trace_url: traceUrl.replaceAll('{trace_id}', traceId) }),
  };
}

/** One node: its view, what it was granted, its transcript and its events. */
export function nodeDetail(store: SqliteStore, runId: string, key: string): NodeDetail | undefined {
  const nodes = store.listNodes(runId);
  const node = nodes.find((n) => n.id === key || n.path === key);
  if (node === undefined) return undefined;
  const paths = new Map(nodes.map((n) => [n.id, n.path]));
  const parked = parkedSince([node], () => store.listEvents(runId));
  const view = nodeViews(nodes, parked).find((n) => n.node_id === node.id);
  if (view === undefined) return undefined;
  return {
    ...view,
    grant: grantOf(node),
    messages: shownTranscript(store.listTranscript(runId, node.id)),
    events: store
      .listEvents(runId)
      .filter((record) => record.nodeId === node.id)
      .map((record) => ({ seq: record.seq, ...wireLine(runId, record, paths) })),
  };
}

/** A run's events after `afterSeq`, each with its `seq` (the SSE id a reader resumes from). */
export function eventsAfter(
  store: SqliteStore,
  runId: string,
  afterSeq: number,
  limit: number,
): WireEvent[] {
  const records = store.listEvents(runId, { afterSeq, limit });
  if (records.length === 0) return [];
  const paths = new Map(store.listNodes(runId).map((node) => [node.id, node.path]));
  return records.map((record) => ({ seq: record.seq, ...wireLine(runId, record, paths) }));
}

/** The authority a node was minted with, as its payload records it (secrets already redacted). */
function grantOf(node: NodeRecord): Record<string, unknown> {
  const payload = node.payload;
  return {
    role: payload.role,
    ...(payload.allowed_tools === undefined ? {} : { allowed_tools: payload.allowed_tools }),
    gated_tools: payload.gated_tools,
    caveats: payload.caveats,
    limits: payload.limits,
    mcp_servers: payload.mcp_servers.map((server) => server.name),
    sandbox: payload.sandbox,
  };
}
