import {
  pushFromRow,
  scheduleFromRow,
  taskFromRow,
  type ScheduleRecord,
  type ScheduleRow,
  type TaskRecord,
  type TaskRow,
} from './rows.js';
import type { SqlDatabase } from './sql-database.js';
import { SqliteMcpTasks } from './sqlite-mcp-tasks.js';

/**
 * The A2A tasks `arbor serve` answers for, and their push-notification configs, on the run
 * store's database: a task is written before its acceptance is answered, so it outlives the
 * server that took it.
 */
export class SqliteTasks {
  readonly #s: ReturnType<typeof prepare>;
  /** The MCP tasks of `arbor mcp`, in a table of their own. */
  readonly mcp: SqliteMcpTasks;

  constructor(db: SqlDatabase) {
    this.#s = prepare(db);
    this.mcp = new SqliteMcpTasks(db);
  }

  /** Writes a task whole (created, or changed). */
  put(record: Omit<TaskRecord, 'createdAt'> & { createdAt?: number }): void {
    this.#s.put.run({
      id: record.id,
      context_id: record.contextId,
      run_id: record.runId ?? null,
      owner: record.owner,
      state: record.state,
      task: JSON.stringify(record.task),
      tokens: record.tokens,
      created_at: record.createdAt ?? record.updatedAt,
      updated_at: record.updatedAt,
    });
  }

  get(id: string): TaskRecord | undefined {
    const row = this.#s.get.get(id) as TaskRow | undefined;
    return row === undefined ? undefined : taskFromRow(row);
  }

  /**
   * Tasks, most recently updated first: an owner's (or everyone's), optionally of one context and
   * state, updated after a time; `after` is the (updatedAt, id) of the last task of the page before.
   */
  list(filter: {
    owner?: string;
    contextId?: string;
    state?: number;
    updatedAfter?: number;
    after?: { updatedAt: number; id: string };
    limit: number;
  }): TaskRecord[] {
    const rows = this.#s.list.all({
      owner: filter.owner ?? null,
      context_id: filter.contextId ?? null,
      state: filter.state ?? null,
      updated_after: filter.updatedAfter ?? null,
      cursor_at: filter.after?.updatedAt ?? null,
      cursor_id: filter.after?.id ?? '',
      limit: filter.limit,
    }) as TaskRow[];
    return rows.map(taskFromRow);
  }

  count(filter: {
    owner?: string;
    contextId?: string;
    state?: number;
    updatedAfter?: number;
  }): number {
    const row = this.#s.count.get({
      owner: filter.owner ?? null,
      context_id: filter.contextId ?? null,
      state: filter.state ?? null,
      updated_after: filter.updatedAfter ?? null,
    }) as { n: number };
    return row.n;
  }

  /** The principal whose task started a run, if a task did. */
  ownerOfRun(runId: string): string | undefined {
    const row = this.#s.ownerOfRun.get(runId) as { owner: string } | undefined;
    return row?.owner;
  }

  /** Tasks in any of these states (those a restarted server takes up again). */
  inStates(states: readonly number[]): TaskRecord[] {
    return (this.#s.inStates.all(JSON.stringify(states)) as TaskRow[]).map(taskFromRow);
  }

  /** Tokens used by an owner's tasks created since `since`. */
  tokensSince(owner: string, since: number): number {
    const row = this.#s.tokens.get(owner, since) as { n: number | null };
    return row.n ?? 0;
  }

  putPush(taskId: string, id: string, config: unknown): void {
    this.#s.putPush.run(taskId, id, JSON.stringify(config));
  }

  listPush(taskId: string): unknown[] {
    return (this.#s.listPush.all(taskId) as { config: string }[]).map(pushFromRow);
  }

  deletePush(taskId: string, id: string): boolean {
    return Number(this.#s.deletePush.run(taskId, id).changes) > 0;
  }

  /** Writes a schedule whole (created, or moved on after it fired). */
  putSchedule(record: ScheduleRecord): void {
    this.#s.putSchedule.run({
      id: record.id,
      kind: record.kind,
      instruction: record.instruction,
      owner: record.owner,
      next_at: record.nextAt ?? null,
      every_ms: record.everyMs ?? null,
      remaining: record.remaining ?? null,
      server: record.server ?? null,
      uri: record.uri ?? null,
      source: record.source ?? null,
      created_at: record.createdAt,
    });
  }

  schedules(): ScheduleRecord[] {
    return (this.#s.schedules.all() as ScheduleRow[]).map(scheduleFromRow);
  }

  deleteSchedule(id: string): boolean {
    return Number(this.#s.deleteSchedule.run(id).changes) > 0;
  }
}

const FILTER = `(@owner IS NULL OR owner = @owner) AND (@context_id IS NULL OR context_id = @context_id)
  AND (@state IS NULL OR state = @state) AND (@updated_after IS NULL OR updated_at > @updated_after)`;

function prepare(db: SqlDatabase) {
  return {
    put: db.prepare(
      `INSERT INTO a2a_tasks (id, context_id, run_id, owner, state, task, tokens, created_at, updated_at)
       VALUES (@id, @context_id, @run_id, @owner, @state, @task, @tokens, @created_at, @updated_at)
       ON CONFLICT (id) DO UPDATE SET context_id = @context_id, run_id = @run_id, state = @state,
         task = @task, tokens = @tokens, updated_at = @updated_at`,
    ),
    get: db.prepare('SELECT * FROM a2a_tasks WHERE id = ?'),
    ownerOfRun: db.prepare('SELECT owner FROM a2a_tasks WHERE run_id = ? LIMIT 1'),
    list: db.prepare(
      `SELECT * FROM a2a_tasks WHERE ${FILTER}
         AND (@cursor_at IS NULL OR updated_at < @cursor_at OR (updated_at = @cursor_at AND id < @cursor_id))
       ORDER BY updated_at DESC, id DESC LIMIT @limit`,
    ),
    count: db.prepare(`SELECT COUNT(*) AS n FROM a2a_tasks WHERE ${FILTER}`),
    inStates: db.prepare(
      'SELECT * FROM a2a_tasks WHERE state IN (SELECT value FROM json_each(?)) ORDER BY created_at',
    ),
    tokens: db.prepare(
      'SELECT SUM(tokens) AS n FROM a2a_tasks WHERE owner = ? AND created_at >= ?',
    ),
    putPush: db.prepare(
      'INSERT INTO a2a_push (task_id, id, config) VALUES (?, ?, ?) ON CONFLICT (task_id, id) DO UPDATE SET config = excluded.config',
    ),
    listPush: db.prepare('SELECT config FROM a2a_push WHERE task_id = ? ORDER BY id'),
    deletePush: db.prepare('DELETE FROM a2a_push WHERE task_id = ? AND id = ?'),
    putSchedule: db.prepare(
      `INSERT INTO serve_schedules (id, kind, instruction, owner, next_at, every_ms, remaining, server, uri, source, created_at)
       VALUES (@id, @kind, @instruction, @owner, @next_at, @every_ms, @remaining, @server, @uri, @source, @created_at)
       ON CONFLICT (id) DO UPDATE SET next_at = @next_at, remaining = @remaining`,
    ),
    schedules: db.prepare('SELECT * FROM serve_schedules ORDER BY created_at, id'),
    deleteSchedule: db.prepare('DELETE FROM serve_schedules WHERE id = ?'),
  };
}
