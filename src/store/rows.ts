import { z } from 'zod';
import {
  OutcomeSchema,
  SpawnPayloadSchema,
  TranscriptEntrySchema,
  type TranscriptEntry,
} from '../protocol/index.js';
import { RunOwnerSchema, type RunOwner } from './run-owner.js';
import { splitsFromRow, type SplitRow } from './usage-columns.js';
import type {
  EventRecord,
  GateRecord,
  MemoryEntry,
  NodeRecord,
  NodeStatus,
  RunRecord,
  RunStatus,
} from './store-port.js';

/**
 * Rows as SQLite returns them, and their conversion to records. JSON columns are parsed and
 * validated here: the database file is input like any other and may have been written by
 * another version.
 */

export interface RunRow {
  id: string;
  instruction: string;
  status: string;
  created_at: number;
  ended_at: number | null;
  meta: string;
}

/** A node's row; its cache and reasoning splits are NULL when never reported. */
export interface NodeRow extends SplitRow {
  run_id: string;
  id: string;
  parent_id: string | null;
  path: string;
  depth: number;
  provider: string;
  instruction: string;
  status: string;
  payload: string;
  attempts: number;
  created_at: number;
  started_at: number | null;
  ended_at: number | null;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number | null;
  outcome: string | null;
  error: string | null;
  subtree_input_tokens: number | null;
  subtree_output_tokens: number | null;
  subtree_cost_usd: number | null;
}

export interface EventRow {
  seq: number;
  run_id: string;
  node_id: string | null;
  ts: number;
  kind: string;
  data: string;
}

const ObjectColumn = z.record(z.string(), z.unknown());

function json(text: string): unknown {
  return JSON.parse(text);
}

export function runFromRow(row: RunRow): RunRecord {
  return {
    id: row.id,
    instruction: row.instruction,
    status: row.status as RunStatus,
    createdAt: row.created_at,
    ...(row.ended_at === null ? {} : { endedAt: row.ended_at }),
    meta: ObjectColumn.parse(json(row.meta)),
  };
}

export function nodeFromRow(row: NodeRow): NodeRecord {
  return {
    runId: row.run_id,
    id: row.id,
    ...(row.parent_id === null ? {} : { parentId: row.parent_id }),
    path: row.path,
    depth: row.depth,
    provider: row.provider,
    instruction: row.instruction,
    status: row.status as NodeStatus,
    payload: SpawnPayloadSchema.parse(json(row.payload)),
    attempts: row.attempts,
    createdAt: row.created_at,
    ...(row.started_at === null ? {} : { startedAt: row.started_at }),
    ...(row.ended_at === null ? {} : { endedAt: row.ended_at }),
    usage: {
      input_tokens: row.input_tokens,
      output_tokens: row.output_tokens,
      ...splitsFromRow(row),
      ...(row.cost_usd === null ? {} : { cost_usd: row.cost_usd }),
    },
    ...(row.subtree_input_tokens === null || row.subtree_output_tokens === null
      ? {}
      : {
          subtreeUsage: {
            input_tokens: row.subtree_input_tokens,
            output_tokens: row.subtree_output_tokens,
            ...splitsFromRow(row, 'subtree_'),
            ...(row.subtree_cost_usd === null ? {} : { cost_usd: row.subtree_cost_usd }),
          },
        }),
    ...(row.outcome === null ? {} : { outcome: OutcomeSchema.parse(json(row.outcome)) }),
    ...(row.error === null ? {} : { error: row.error }),
  };
}

export function eventFromRow(row: EventRow): EventRecord {
  return {
    seq: row.seq,
    runId: row.run_id,
    ...(row.node_id === null ? {} : { nodeId: row.node_id }),
    ts: row.ts,
    kind: row.kind,
    data: ObjectColumn.parse(json(row.data)),
  };
}

export interface MemoryRow {
  key: string;
  value: string;
  expires_at: number | null;
  updated_at: number;
}

export function memoryFromRow(row: MemoryRow): MemoryEntry {
  return {
    key: row.key,
    value: json(row.value),
    ...(row.expires_at === null ? {} : { expiresAt: row.expires_at }),
    updatedAt: row.updated_at,
  };
}

export interface GateRow {
  run_id: string;
  id: string;
  node_id: string | null;
  question: string;
  payload: string;
  status: string;
  answer: string | null;
  via: string | null;
  created_at: number;
  closed_at: number | null;
}

const GateStatus = z.enum(['open', 'answered', 'timed_out', 'failed']);

export function gateFromRow(row: GateRow): GateRecord {
  return {
    runId: row.run_id,
    id: row.id,
    ...(row.node_id === null ? {} : { nodeId: row.node_id }),
    question: row.question,
    payload: ObjectColumn.parse(json(row.payload)),
    status: GateStatus.parse(row.status),
    ...(row.answer === null ? {} : { answer: row.answer }),
    ...(row.via === null ? {} : { via: row.via }),
    createdAt: row.created_at,
    ...(row.closed_at === null ? {} : { closedAt: row.closed_at }),
  };
}

export function transcriptEntryFromColumn(text: string): TranscriptEntry {
  return TranscriptEntrySchema.parse(json(text));
}

/** A run's owner column; `undefined` when absent or unreadable (the run is then ownerless). */
export function ownerFromColumn(text: string | null): RunOwner | undefined {
  if (text === null) return undefined;
  try {
    const parsed = RunOwnerSchema.safeParse(json(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

export interface TaskRow {
  id: string;
  context_id: string;
  run_id: string | null;
  owner: string;
  state: number;
  task: string;
  tokens: number;
  created_at: number;
  updated_at: number;
}

/** A task `arbor serve` answers for over A2A, as stored (its body is the protocol's JSON form). */
export interface TaskRecord {
  id: string;
  contextId: string;
  runId?: string;
  /** The principal that created it. */
  owner: string;
  /** The A2A task state, as the protocol's enum number. */
  state: number;
  /** The task in the protocol's JSON form. */
  task: unknown;
  /** Tokens its run used, for per-principal daily limits. */
  tokens: number;
  createdAt: number;
  updatedAt: number;
}

export function taskFromRow(row: TaskRow): TaskRecord {
  return {
    id: row.id,
    contextId: row.context_id,
    ...(row.run_id === null ? {} : { runId: row.run_id }),
    owner: row.owner,
    state: row.state,
    task: json(row.task),
    tokens: row.tokens,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** A push-notification config's body, as stored. */
export function pushFromRow(row: { config: string }): unknown {
  return json(row.config);
}

/** A run `arbor serve` is to start later: an agent's `schedule.at`/`schedule.every`, or its subscription. */
export interface ScheduleRecord {
  id: string;
  kind: 'at' | 'every' | 'subscription';
  instruction: string;
  /** The principal whose task asked for it; the runs it starts are that principal's. */
  owner: string;
  /** When it fires next (milliseconds since the epoch); absent for a subscription. */
  nextAt?: number;
  everyMs?: number;
  /** Runs it may still start (`schedule.every` with `times`); absent: no end. */
  remaining?: number;
  /** A subscription's MCP server and resource. */
  server?: string;
  uri?: string;
  /** The task that asked for it. */
  source?: string;
  createdAt: number;
}

export interface ScheduleRow {
  id: string;
  kind: string;
  instruction: string;
  owner: string;
  next_at: number | null;
  every_ms: number | null;
  remaining: number | null;
  server: string | null;
  uri: string | null;
  source: string | null;
  created_at: number;
}

export function scheduleFromRow(row: ScheduleRow): ScheduleRecord {
  const kind = row.kind === 'every' || row.kind === 'subscription' ? row.kind : 'at';
  return {
    id: row.id,
    kind,
    instruction: row.instruction,
    owner: row.owner,
    ...(row.next_at === null ? {} : { nextAt: row.next_at }),
    ...(row.every_ms === null ? {} : { everyMs: row.every_ms }),
    ...(row.remaining === null ? {} : { remaining: row.remaining }),
    ...(row.server === null ? {} : { server: row.server }),
    ...(row.uri === null ? {} : { uri: row.uri }),
    ...(row.source === null ? {} : { source: row.source }),
    createdAt: row.created_at,
  };
}

export interface McpTaskRow {
  id: string;
  session: string | null;
  status: string;
  status_message: string | null;
  ttl_ms: number | null;
  poll_ms: number;
  tool: string;
  run_id: string | null;
  result: string | null;
  created_at: number;
  updated_at: number;
}

/** A task `arbor mcp` answers for (MCP's tasks utility), as stored. */
export interface McpTaskRecord {
  id: string;
  /** The MCP session that created it (none over stdio). */
  session?: string;
  /** The MCP task status (`working`, `input_required`, `completed`, `failed`, `cancelled`). */
  status: string;
  statusMessage?: string;
  /** How long it is kept after its creation, in milliseconds; null: until pruned. */
  ttlMs: number | null;
  pollMs: number;
  /** The tool called. */
  tool: string;
  runId?: string;
  /** The tool's result (an MCP `CallToolResult`), once the run has ended. */
  result?: unknown;
  createdAt: number;
  updatedAt: number;
}

export function mcpTaskFromRow(row: McpTaskRow): McpTaskRecord {
  return {
    id: row.id,
    ...(row.session === null ? {} : { session: row.session }),
    status: row.status,
    ...(row.status_message === null ? {} : { statusMessage: row.status_message }),
    ttlMs: row.ttl_ms,
    pollMs: row.poll_ms,
    tool: row.tool,
    ...(row.run_id === null ? {} : { runId: row.run_id }),
    ...(row.result === null ? {} : { result: json(row.result) }),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
