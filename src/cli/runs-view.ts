import { addUsage, ZERO_USAGE } from '../loop/index.js';
import type { TranscriptMessage, Usage } from '../protocol/index.js';
import { fromWireEvent, toWireEvent, type ArborEvent } from '../runtime/index.js';
import type { EventRecord, NodeRecord, RunRecord } from '../supervisor/index.js';

/** What `arbor runs` says of a run and its nodes, in the field names of the events and the store. */
export interface RunSummary {
  run_id: string;
  status: string;
  instruction: string;
  created_at: string;
  ended_at?: string;
  duration_ms?: number;
  nodes: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd?: number;
}

export interface NodeView {
  node_id: string;
  path: string;
  parent_id?: string;
  depth: number;
  provider: string;
  status: string;
  instruction: string;
  started_at?: string;
  ended_at?: string;
  duration_ms?: number;
  usage: Usage;
  subtree_usage: Usage;
  result?: unknown;
  reason?: string;
}

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
    input_tokens: total.input_tokens,
    output_tokens: total.output_tokens,
    ...(total.cost_usd === undefined ? {} : { cost_usd: total.cost_usd }),
  };
}

/** Every node with its own and its subtree's usage (summed here, for nodes still going too). */
export function nodeViews(nodes: readonly NodeRecord[]): NodeView[] {
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
  }));
}

/** Milliseconds as a person reads them: `850ms`, `12.3s`, `4m05s`, `2h10m`. */
export function duration(ms: number | undefined): string {
  if (ms === undefined) return '-';
  if (ms < 1000) return `${ms}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 60)
    return `${minutes}m${String(Math.floor((ms % 60_000) / 1000)).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, '0')}m`;
}

export function usageText(usage: Usage): string {
  const tokens = `${usage.input_tokens}+${usage.output_tokens} tok`;
  return usage.cost_usd === undefined ? tokens : `${tokens} $${usage.cost_usd.toFixed(4)}`;
}

/** Rows as a table: columns padded to their widest cell, the last one left as it is. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: readonly string[]): string =>
    cells
      .map((cell, column) =>
        column === cells.length - 1 ? cell : cell.padEnd(widths[column] ?? 0),
      )
      .join('  ')
      .trimEnd();
  return `${[line(header), ...rows.map(line)].join('\n')}\n`;
}

/** One line of text, cut to `max` characters. */
export function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** A transcript as a person reads it: who said what, tool calls and what they returned. */
export function transcriptText(messages: readonly TranscriptMessage[]): string {
  const lines: string[] = [];
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        lines.push(`[system] ${oneLine(message.text, 200)}`);
        break;
      case 'user':
        lines.push(
          `[user${message.principal === undefined ? '' : ` ${message.principal}`}] ${message.text}`,
        );
        break;
      case 'assistant':
        if (message.text !== undefined && message.text !== '')
          lines.push(`[assistant] ${message.text}`);
        for (const call of message.tool_calls)
          lines.push(
            `[tool call ${call.id}] ${call.name} ${oneLine(JSON.stringify(call.args), 300)}`,
          );
        break;
      case 'tool':
        lines.push(
          `[tool ${message.is_error ? 'error' : 'result'} ${message.id}] ${message.name}: ${oneLine(typeof message.content === 'string' ? message.content : JSON.stringify(message.content), 500)}`,
        );
        break;
      case 'note':
        lines.push(`[note] ${message.text}`);
        break;
    }
  }
  return lines.length === 0 ? '(no messages)\n' : `${lines.join('\n')}\n`;
}

/** An event as the NDJSON line `--events ndjson` writes, from its stored record. */
export function wireLine(
  runId: string,
  record: EventRecord,
  paths: ReadonlyMap<string, string>,
): Record<string, unknown> {
  const base = {
    ts: new Date(record.ts).toISOString(),
    run_id: runId,
    ...(record.nodeId === undefined ? {} : { node_id: record.nodeId }),
    ...(record.nodeId === undefined || !paths.has(record.nodeId)
      ? {}
      : { path: paths.get(record.nodeId) }),
  };
  let event: ArborEvent;
  try {
    event = fromWireEvent({ ...base, event: record.kind, ...record.data });
  } catch {
    // A kind this arbor does not name (recorded by another version, or run-level): as stored.
    return { ...base, event: record.kind, ...record.data };
  }
  return toWireEvent(event);
}
