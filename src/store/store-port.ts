import type {
  Outcome,
  SpawnPayload,
  TerminalStatus,
  TranscriptEntry,
  Usage,
} from '../protocol/index.js';

/**
 * What the supervisor records, and the port it records through. The supervisor is its user; it
 * lives here, beside the SQLite store that implements it, so the store imports nothing above it
 * and a server database can stand in. Payloads reaching the store are always redacted first.
 */

/**
 * A node's life: not yet started, starting, running, paused, one of the terminal statuses, or
 * `interrupted` (its supervisor died while it ran; `arbor resume` continues it).
 */
export type NodeStatus =
  'pending' | 'spawning' | 'running' | 'paused' | 'parked' | 'interrupted' | TerminalStatus;

/** A run's life: running, how it ended, or `interrupted` (its supervisor died; resumable). */
export type RunStatus = 'running' | 'interrupted' | TerminalStatus;

export interface RunRecord {
  id: string;
  /** The root instruction. */
  instruction: string;
  status: RunStatus;
  /** Milliseconds since the epoch. */
  createdAt: number;
  endedAt?: number;
  /** Secret-free facts about how the run was started (command, model, limits). */
  meta: Record<string, unknown>;
}

export interface NodeRecord {
  runId: string;
  id: string;
  parentId?: string;
  /** Tree path: `0`, `0.2`, `0.2.1`. */
  path: string;
  depth: number;
  /** How the child is run: `process`, `spawn`, `fork`. */
  provider: string;
  instruction: string;
  status: NodeStatus;
  /** The minted payload, redacted. */
  payload: SpawnPayload;
  attempts: number;
  createdAt: number;
  startedAt?: number;
  endedAt?: number;
  /** The node's own usage (its model calls only). */
  usage: Usage;
  /** The usage of the node and all its descendants, written when the node ends. */
  subtreeUsage?: Usage;
  outcome?: Outcome;
  error?: string;
}

export interface EventRecord {
  seq: number;
  runId: string;
  nodeId?: string;
  /** Milliseconds since the epoch. */
  ts: number;
  /** `node.spawned`, `loop.step`, `tool.call`, `child.kill`, `protocol.violation`, … */
  kind: string;
  data: Record<string, unknown>;
}

export type NewEvent = Omit<EventRecord, 'seq'>;

export type NodePatch = Partial<
  Pick<
    NodeRecord,
    | 'status'
    | 'startedAt'
    | 'endedAt'
    | 'outcome'
    | 'error'
    | 'attempts'
    | 'payload'
    | 'subtreeUsage'
  >
>;

/** A question waiting for a human: `ask_human`, or a policy rule that says `ask`. */
export interface GateRecord {
  runId: string;
  id: string;
  nodeId?: string;
  question: string;
  /** What the human is shown besides the question (the tool and its arguments, the choices). */
  payload: Record<string, unknown>;
  status: 'open' | 'answered' | 'timed_out' | 'failed';
  answer?: string;
  /** How it was answered: `terminal`, `cli`, `timeout`, `fallback`. */
  via?: string;
  createdAt: number;
  closedAt?: number;
}

/** A durable memory entry, shared by every run that uses the store. */
export interface MemoryEntry {
  key: string;
  value: unknown;
  expiresAt?: number;
  updatedAt: number;
}

export interface RunStore {
  createRun(run: RunRecord): void;
  finishRun(runId: string, status: TerminalStatus, endedAt: number): void;
  getRun(runId: string): RunRecord | undefined;
  createNode(node: NodeRecord): void;
  updateNode(runId: string, nodeId: string, patch: NodePatch): void;
  getNode(runId: string, nodeId: string): NodeRecord | undefined;
  listNodes(runId: string): NodeRecord[];
  /**
   * Appends an event. Events, transcript changes, usage and node updates may be written in
   * batches (within the same turn of the event loop), but always in the order they were made,
   * before any later write of another kind and before a read of what they touch.
   */
  appendEvent(event: NewEvent): void;
  /** Writes every batched record now. */
  flush(): void;
  listEvents(runId: string, options?: { afterSeq?: number; limit?: number }): EventRecord[];
  /** Appends one change of a node's transcript (scrubbed of secrets by the caller). */
  appendTranscript(runId: string, nodeId: string, ts: number, entry: TranscriptEntry): void;
  /** A node's transcript changes, in order. */
  listTranscript(runId: string, nodeId: string): TranscriptEntry[];
  /** Adds usage to a node's own total. */
  addUsage(runId: string, nodeId: string, usage: Usage): void;
  /** The entry, unless it is absent or expired (an expired entry is removed on read). */
  memoryGet(key: string, now: number): MemoryEntry | undefined;
  memorySet(entry: MemoryEntry): void;
  /** Live keys starting with `prefix`, in key order. */
  memoryList(prefix: string, now: number, limit: number): string[];
  memoryDelete(key: string): boolean;
  openGate(gate: GateRecord): void;
  /** Closes an open gate; false when it was not open (already answered, or unknown). */
  closeGate(
    runId: string,
    id: string,
    close: { status: GateRecord['status']; answer?: string; via: string; closedAt: number },
  ): boolean;
  getGate(runId: string, id: string): GateRecord | undefined;
  listGates(filter: { runId?: string; status?: GateRecord['status'] }): GateRecord[];
  /** A budget window's counters for the period starting at `periodStart` (zeros when none). */
  windowGet(key: string, periodStart: number): { tokens: number; requests: number };
  windowAdd(key: string, periodStart: number, tokens: number, requests: number): void;
  close(): void;
}
