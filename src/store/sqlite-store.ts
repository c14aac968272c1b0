import type { TerminalStatus, TranscriptEntry, Usage } from '../protocol/index.js';
import type {
  EventRecord,
  GateRecord,
  MemoryEntry,
  NewEvent,
  NodePatch,
  NodeRecord,
  RunRecord,
  RunStore,
} from './store-port.js';
import { openStore } from './open-store.js';
import { pruneRuns } from './prune-runs.js';
import { MemoryAndGates } from './sqlite-memory-gates.js';
import { SqliteTasks } from './sqlite-tasks.js';
import { WriteBatch } from './write-batch.js';
import { ADD_SPLITS_SQL, SPLIT_COLUMNS, splitParams } from './usage-columns.js';
import { RunDurability, type InterruptedRun, type RunHold } from './sqlite-durability.js';
import { LEASE_RENEW_MS, processOwner, type RunOwner } from './run-owner.js';
import {
  eventFromRow,
  nodeFromRow,
  runFromRow,
  type EventRow,
  type NodeRow,
  type RunRow,
} from './rows.js';
import type { SqlDatabase, SqlDriverName, SqlStatement, SqlValue } from './sql-database.js';

/** The default store file, relative to the working directory. */
export const DEFAULT_DB_PATH = '.arbor/arbor.db';

/**
 * The embedded SQLite store. WAL journaling with `synchronous = NORMAL`: every committed write
 * survives a crash of the process (the supervisor's failure mode); only a power cut can lose the
 * last transactions. Writes are synchronous and short, so the supervisor never waits on I/O
 * callbacks and records land in the order they happened. The SQLite binding is Node's built-in
 * `node:sqlite` where it exists, else `better-sqlite3` (see `open-sql-database.ts`).
 */
export class SqliteStore implements RunStore {
  readonly #db: SqlDatabase;
  readonly #statements: ReturnType<typeof prepare>;
  /** `updateNode`'s statements, by their SQL. */
  readonly #nodeUpdates = new Map<string, SqlStatement>();
  /**
   * Events, transcript changes, usage and node updates, committed together at the end of the
   * turn; every other write, every read of what they touch, and `close` commit them first, so the
   * record keeps its order. Runs and nodes are created at once, before a child can act on them.
   */
  readonly #batch: WriteBatch;
  readonly #memoryAndGates: MemoryAndGates;
  readonly #durability: RunDurability;
  /** The A2A tasks of `arbor serve`. */
  readonly tasks: SqliteTasks;
  /** This process, as the owner of the runs it creates or resumes. */
  readonly owner: RunOwner = processOwner();
  /** Runs found abandoned by their supervisor when the store was opened, now `interrupted`. */
  readonly interrupted: InterruptedRun[];
  #leaseTimer: NodeJS.Timeout | undefined;

  constructor(path: string, options: { driver?: SqlDriverName } = {}) {
    this.#db = openStore(path, options.driver);
    this.#statements = prepare(this.#db);
    this.#memoryAndGates = new MemoryAndGates(this.#db);
    this.#durability = new RunDurability(this.#db);
    this.tasks = new SqliteTasks(this.#db);
    this.interrupted = this.#durability.reap(this.owner, Date.now());
    this.#batch = new WriteBatch(this.#db);
  }

  createRun(run: RunRecord): void {
    this.flush();
    this.#statements.insertRun.run({
      id: run.id,
      instruction: run.instruction,
      status: run.status,
      created_at: run.createdAt,
      ended_at: run.endedAt ?? null,
      meta: JSON.stringify(run.meta),
    });
    if (run.status === 'running') this.claimRun(run.id, run.createdAt);
  }

  /**
   * Takes a run for this process (a new run, or an interrupted one being resumed): it is marked
   * `running` under this owner with a fresh lease, renewed while this store is open.
   */
  claimRun(runId: string, now: number = Date.now()): void {
    this.flush();
    this.#statements.reopenRun.run({ id: runId });
    this.#durability.claim(runId, this.owner, now);
    this.#renewLeases();
  }

  /**
   * Takes an interrupted run for this process (`running`, with a fresh lease) unless another arbor
   * is taking it up: a compare-and-set, so of two arbors on this store one gets it. `reserve` holds
   * it, still interrupted, for one lease while this process starts resuming it.
   */
  takeOverRun(runId: string, now: number = Date.now(), reserve = false): boolean {
    this.flush();
    if (!this.#durability.take(runId, this.owner, now, !reserve)) return false;
    if (!reserve) this.#renewLeases();
    return true;
  }

  /** `takeOverRun` holding the run for one lease, still interrupted. */
  reserveRun(runId: string, now: number = Date.now()): boolean {
    return this.takeOverRun(runId, now, true);
  }

  #renewLeases(): void {
    this.#leaseTimer ??= setInterval(() => {
      if (this.#db.isOpen) this.#durability.renew(this.owner, Date.now());
    }, LEASE_RENEW_MS).unref();
  }

  /** Who holds a run and how long it has been active. */
  runHold(runId: string): RunHold | undefined {
    return this.#durability.hold(runId);
  }

  /** Marks runs whose supervisor is gone as `interrupted` (done on open; again on demand). */
  reapInterrupted(now: number = Date.now()): InterruptedRun[] {
    this.flush();
    return this.#durability.reap(this.owner, now);
  }

  appendTranscript(runId: string, nodeId: string, ts: number, entry: TranscriptEntry): void {
    const row = { run_id: runId, node_id: nodeId, ts, entry: JSON.stringify(entry) };
    this.#batch.add(() => {
      this.#durability.appendTranscript(row);
    });
  }

  listTranscript(runId: string, nodeId: string): TranscriptEntry[] {
    this.flush();
    return this.#durability.listTranscript(runId, nodeId);
  }

  finishRun(runId: string, status: TerminalStatus, endedAt: number): void {
    this.flush();
    // The last stretch of activity counts, then the lease is let go.
    this.#durability.renew(this.owner, endedAt);
    this.#statements.finishRun.run({ id: runId, status, ended_at: endedAt });
  }

  /**
   * Deletes the runs created before `before` that are not running, with their nodes, events,
   * transcripts and gates; returns their ids. `dryRun` only lists them.
   */
  pruneRuns(before: number, options: { dryRun?: boolean } = {}): string[] {
    this.flush();
    return pruneRuns(this.#db, before, options);
  }

  getRun(runId: string): RunRecord | undefined {
    this.flush();
    const row = this.#statements.getRun.get(runId) as RunRow | undefined;
    return row === undefined ? undefined : runFromRow(row);
  }

  /**
   * Runs, newest first: all of them, or those of a status, started since a time, whose id or
   * instruction holds `search`, or started by an `arbor serve` principal's tasks (`owner`).
   */
  listRuns(
    filter: {
      status?: string;
      since?: number;
      limit?: number;
      search?: string;
      owner?: string;
    } = {},
  ): RunRecord[] {
    this.flush();
    const rows = this.#db
      .prepare(
        `SELECT * FROM runs WHERE (@status IS NULL OR status = @status)
           AND created_at >= @since
           AND (@search IS NULL OR instr(lower(instruction), @search) > 0 OR instr(id, @search) > 0)
           AND (@owner IS NULL OR id IN (SELECT run_id FROM a2a_tasks WHERE owner = @owner))
         ORDER BY created_at DESC, id DESC LIMIT @limit`,
      )
      .all({
        status: filter.status ?? null,
        since: filter.since ?? 0,
        search:
          filter.search === undefined || filter.search === '' ? null : filter.search.toLowerCase(),
        owner: filter.owner ?? null,
        limit: filter.limit ?? -1,
      }) as RunRow[];
    return rows.map(runFromRow);
  }

  createNode(node: NodeRecord): void {
    this.flush();
    this.#statements.insertNode.run({
      run_id: node.runId,
      id: node.id,
      parent_id: node.parentId ?? null,
      path: node.path,
      depth: node.depth,
      provider: node.provider,
      instruction: node.instruction,
      status: node.status,
      payload: JSON.stringify(node.payload),
      attempts: node.attempts,
      created_at: node.createdAt,
      started_at: node.startedAt ?? null,
      ended_at: node.endedAt ?? null,
      input_tokens: node.usage.input_tokens,
      output_tokens: node.usage.output_tokens,
      cost_usd: node.usage.cost_usd ?? null,
      ...splitParams(node.usage),
      outcome: node.outcome === undefined ? null : JSON.stringify(node.outcome),
      error: node.error ?? null,
    });
  }

  updateNode(runId: string, nodeId: string, patch: NodePatch): void {
    const columns: string[] = [];
    const values: Record<string, SqlValue> = { run_id: runId, id: nodeId };
    const set = (column: string, value: SqlValue): void => {
      columns.push(`${column} = @${column}`);
      values[column] = value;
    };
    if (patch.status !== undefined) set('status', patch.status);
    if (patch.startedAt !== undefined) set('started_at', patch.startedAt);
    if (patch.endedAt !== undefined) set('ended_at', patch.endedAt);
    if (patch.attempts !== undefined) set('attempts', patch.attempts);
    if (patch.error !== undefined) set('error', patch.error);
    if (patch.outcome !== undefined) set('outcome', JSON.stringify(patch.outcome));
    if (patch.payload !== undefined) set('payload', JSON.stringify(patch.payload));
    if (patch.subtreeUsage !== undefined) {
      set('subtree_input_tokens', patch.subtreeUsage.input_tokens);
      set('subtree_output_tokens', patch.subtreeUsage.output_tokens);
      set('subtree_cost_usd', patch.subtreeUsage.cost_usd ?? null);
      const splits = splitParams(patch.subtreeUsage);
      for (const column of SPLIT_COLUMNS) set(`subtree_${column}`, splits[column]);
    }
    if (columns.length === 0) return;
    const update = this.#nodeUpdate(columns);
    this.#batch.add(() => {
      update.run(values);
    });
  }

  /**
   * One statement per set of columns (a handful of shapes), prepared on first use: preparing it
   * again for every update was a third of the update's cost.
   */
  #nodeUpdate(columns: readonly string[]): SqlStatement {
    const sql = `UPDATE nodes SET ${columns.join(', ')} WHERE run_id = @run_id AND id = @id`;
    let statement = this.#nodeUpdates.get(sql);
    if (statement === undefined) {
      statement = this.#db.prepare(sql);
      this.#nodeUpdates.set(sql, statement);
    }
    return statement;
  }

  getNode(runId: string, nodeId: string): NodeRecord | undefined {
    this.flush();
    const row = this.#statements.getNode.get(runId, nodeId) as NodeRow | undefined;
    return row === undefined ? undefined : nodeFromRow(row);
  }

  listNodes(runId: string): NodeRecord[] {
    this.flush();
    return (this.#statements.listNodes.all(runId) as NodeRow[]).map(nodeFromRow);
  }

  appendEvent(event: NewEvent): void {
    const row = {
      run_id: event.runId,
      node_id: event.nodeId ?? null,
      ts: event.ts,
      kind: event.kind,
      data: JSON.stringify(event.data),
    };
    this.#batch.add(() => {
      this.#statements.insertEvent.run(row);
    });
  }

  flush(): void {
    this.#batch.flush();
  }

  listEvents(runId: string, options: { afterSeq?: number; limit?: number } = {}): EventRecord[] {
    this.flush();
    const rows = this.#statements.listEvents.all(
      runId,
      options.afterSeq ?? 0,
      options.limit ?? -1,
    ) as EventRow[];
    return rows.map(eventFromRow);
  }

  addUsage(runId: string, nodeId: string, usage: Usage): void {
    const row = {
      run_id: runId,
      id: nodeId,
      input_tokens: usage.input_tokens,
      output_tokens: usage.output_tokens,
      cost_usd: usage.cost_usd ?? null,
      ...splitParams(usage),
    };
    this.#batch.add(() => {
      this.#statements.addUsage.run(row);
    });
  }

  memoryGet(key: string, now: number): MemoryEntry | undefined {
    return this.#memoryAndGates.memoryGet(key, now);
  }

  memorySet(entry: MemoryEntry): void {
    this.flush();
    this.#memoryAndGates.memorySet(entry);
  }

  memoryList(prefix: string, now: number, limit: number): string[] {
    return this.#memoryAndGates.memoryList(prefix, now, limit);
  }

  memoryDelete(key: string): boolean {
    this.flush();
    return this.#memoryAndGates.memoryDelete(key);
  }

  openGate(gate: GateRecord): void {
    this.flush();
    this.#memoryAndGates.openGate(gate);
  }

  closeGate(runId: string, id: string, close: Parameters<RunStore['closeGate']>[2]): boolean {
    this.flush();
    return this.#memoryAndGates.closeGate(runId, id, close);
  }

  getGate(runId: string, id: string): GateRecord | undefined {
    return this.#memoryAndGates.getGate(runId, id);
  }

  listGates(filter: { runId?: string; status?: GateRecord['status'] }): GateRecord[] {
    return this.#memoryAndGates.listGates(filter);
  }

  windowGet(key: string, periodStart: number): { tokens: number; requests: number } {
    return this.#memoryAndGates.windowGet(key, periodStart);
  }

  windowAdd(key: string, periodStart: number, tokens: number, requests: number): void {
    this.flush();
    this.#memoryAndGates.windowAdd(key, periodStart, tokens, requests);
  }

  close(): void {
    this.flush();
    clearInterval(this.#leaseTimer);
    if (this.#db.isOpen) this.#db.close();
  }
}

function prepare(db: SqlDatabase) {
  return {
    insertRun: db.prepare(
      'INSERT INTO runs (id, instruction, status, created_at, ended_at, meta) VALUES (@id, @instruction, @status, @created_at, @ended_at, @meta)',
    ),
    finishRun: db.prepare(
      'UPDATE runs SET status = @status, ended_at = @ended_at, lease_until = NULL WHERE id = @id',
    ),
    reopenRun: db.prepare("UPDATE runs SET status = 'running', ended_at = NULL WHERE id = @id"),
    getRun: db.prepare('SELECT * FROM runs WHERE id = ?'),
    insertNode: db.prepare(
      `INSERT INTO nodes (run_id, id, parent_id, path, depth, provider, instruction, status, payload, attempts,
        created_at, started_at, ended_at, input_tokens, output_tokens, cost_usd, ${SPLIT_COLUMNS.join(', ')},
        outcome, error)
       VALUES (@run_id, @id, @parent_id, @path, @depth, @provider, @instruction, @status, @payload, @attempts,
        @created_at, @started_at, @ended_at, @input_tokens, @output_tokens, @cost_usd,
        ${SPLIT_COLUMNS.map((column) => `@${column}`).join(', ')}, @outcome, @error)`,
    ),
    getNode: db.prepare('SELECT * FROM nodes WHERE run_id = ? AND id = ?'),
    listNodes: db.prepare('SELECT * FROM nodes WHERE run_id = ? ORDER BY created_at, path'),
    insertEvent: db.prepare(
      'INSERT INTO events (run_id, node_id, ts, kind, data) VALUES (@run_id, @node_id, @ts, @kind, @data)',
    ),
    listEvents: db.prepare(
      'SELECT * FROM events WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?',
    ),
    addUsage: db.prepare(
      `UPDATE nodes SET input_tokens = input_tokens + @input_tokens, output_tokens = output_tokens + @output_tokens,
        cost_usd = CASE WHEN @cost_usd IS NULL THEN cost_usd ELSE COALESCE(cost_usd, 0) + @cost_usd END,
        ${ADD_SPLITS_SQL}
       WHERE run_id = @run_id AND id = @id`,
    ),
  };
}
