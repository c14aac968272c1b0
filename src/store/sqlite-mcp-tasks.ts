import { mcpTaskFromRow, type McpTaskRecord, type McpTaskRow } from './rows.js';
import type { SqlDatabase } from './sql-database.js';

/**
 * The tasks `arbor mcp` answers for, on the run store's database: a task is written when it is
 * created and on every change after, so its status and result outlive the server that ran it.
 */
export class SqliteMcpTasks {
  readonly #s: ReturnType<typeof prepare>;

  constructor(db: SqlDatabase) {
    this.#s = prepare(db);
  }

  /** Writes a task whole (created, or changed). */
  put(record: McpTaskRecord): void {
    this.#s.put.run({
      id: record.id,
      session: record.session ?? null,
      status: record.status,
      status_message: record.statusMessage ?? null,
      ttl_ms: record.ttlMs,
      poll_ms: record.pollMs,
      tool: record.tool,
      run_id: record.runId ?? null,
      result: record.result === undefined ? null : JSON.stringify(record.result),
      created_at: record.createdAt,
      updated_at: record.updatedAt,
    });
  }

  get(id: string): McpTaskRecord | undefined {
    const row = this.#s.get.get(id) as McpTaskRow | undefined;
    return row === undefined ? undefined : mcpTaskFromRow(row);
  }

  /** Tasks in creation order, after the task `after` (a page's last id), at most `limit`. */
  list(after: string | undefined, limit: number): McpTaskRecord[] {
    const rows = this.#s.list.all({ after: after ?? null, limit }) as McpTaskRow[];
    return rows.map(mcpTaskFromRow);
  }

  /** Tasks whose time to live ran out before `now` are deleted; returns how many. */
  deleteExpired(now: number): number {
    return Number(this.#s.expire.run(now).changes);
  }
}

function prepare(db: SqlDatabase) {
  return {
    put: db.prepare(
      `INSERT INTO mcp_tasks (id, session, status, status_message, ttl_ms, poll_ms, tool, run_id, result, created_at, updated_at)
       VALUES (@id, @session, @status, @status_message, @ttl_ms, @poll_ms, @tool, @run_id, @result, @created_at, @updated_at)
       ON CONFLICT (id) DO UPDATE SET status = @status, status_message = @status_message,
         run_id = @run_id, result = @result, updated_at = @updated_at`,
    ),
    get: db.prepare('SELECT * FROM mcp_tasks WHERE id = ?'),
    list: db.prepare(
      `SELECT * FROM mcp_tasks WHERE @after IS NULL
         OR (created_at, id) > (SELECT created_at, id FROM mcp_tasks WHERE id = @after)
       ORDER BY created_at, id LIMIT @limit`,
    ),
    expire: db.prepare(
      'DELETE FROM mcp_tasks WHERE ttl_ms IS NOT NULL AND created_at + ttl_ms < ?',
    ),
  };
}
