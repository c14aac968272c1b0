import type { GateRecord, MemoryEntry } from './store-port.js';
import { gateFromRow, memoryFromRow, type GateRow, type MemoryRow } from './rows.js';
import type { SqlDatabase } from './sql-database.js';

/**
 * Memory (a durable key-value store with expiry), human gates and budget-window counters, on the
 * run store's database.
 */
export class MemoryAndGates {
  readonly #db: SqlDatabase;
  readonly #s: ReturnType<typeof prepare>;

  constructor(db: SqlDatabase) {
    this.#db = db;
    this.#s = prepare(db);
  }

  memoryGet(key: string, now: number): MemoryEntry | undefined {
    const row = this.#s.memoryGet.get(key) as MemoryRow | undefined;
    if (row === undefined) return undefined;
    if (row.expires_at !== null && row.expires_at <= now) {
      this.#s.memoryDelete.run(key);
      return undefined;
    }
    return memoryFromRow(row);
  }

  memorySet(entry: MemoryEntry): void {
    this.#s.memorySet.run({
      key: entry.key,
      value: JSON.stringify(entry.value),
      expires_at: entry.expiresAt ?? null,
      updated_at: entry.updatedAt,
    });
  }

  memoryList(prefix: string, now: number, limit: number): string[] {
    this.#s.memoryExpire.run(now);
    // Escape LIKE's wildcards so a prefix is matched literally.
    const pattern = `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    return (this.#s.memoryList.all(pattern, limit) as { key: string }[]).map((row) => row.key);
  }

  memoryDelete(key: string): boolean {
    return Number(this.#s.memoryDelete.run(key).changes) > 0;
  }

  openGate(gate: GateRecord): void {
    this.#s.gateInsert.run({
      run_id: gate.runId,
      id: gate.id,
      node_id: gate.nodeId ?? null,
      question: gate.question,
      payload: JSON.stringify(gate.payload),
      status: gate.status,
      created_at: gate.createdAt,
    });
  }

  closeGate(
    runId: string,
    id: string,
    close: { status: GateRecord['status']; answer?: string; via: string; closedAt: number },
  ): boolean {
    const result = this.#s.gateClose.run({
      run_id: runId,
      id,
      status: close.status,
      answer: close.answer ?? null,
      via: close.via,
      closed_at: close.closedAt,
    });
    return Number(result.changes) > 0;
  }

  getGate(runId: string, id: string): GateRecord | undefined {
    const row = this.#s.gateGet.get(runId, id) as GateRow | undefined;
    return row === undefined ? undefined : gateFromRow(row);
  }

  windowGet(key: string, periodStart: number): { tokens: number; requests: number } {
    const row = this.#s.windowGet.get(key, periodStart) as
      { tokens: number; requests: number } | undefined;
    return { tokens: row?.tokens ?? 0, requests: row?.requests ?? 0 };
  }

  windowAdd(key: string, periodStart: number, tokens: number, requests: number): void {
    this.#s.windowAdd.run({ key, period_start: periodStart, tokens, requests });
  }

  listGates(filter: { runId?: string; status?: GateRecord['status'] }): GateRecord[] {
    const rows = this.#db
      .prepare(
        `SELECT * FROM gates WHERE (@run_id IS NULL OR run_id = @run_id) AND (@status IS NULL OR status = @status) ORDER BY created_at, id`,
      )
      .all({ run_id: filter.runId ?? null, status: filter.status ?? null }) as GateRow[];
    return rows.map(gateFromRow);
  }
}

function prepare(db: SqlDatabase) {
  return {
    memoryGet: db.prepare('SELECT * FROM memory WHERE key = ?'),
    memorySet: db.prepare(
      `INSERT INTO memory (key, value, expires_at, updated_at) VALUES (@key, @value, @expires_at, @updated_at)
       ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at, updated_at = excluded.updated_at`,
    ),
    memoryExpire: db.prepare('DELETE FROM memory WHERE expires_at IS NOT NULL AND expires_at <= ?'),
    memoryList: db.prepare(
      "SELECT key FROM memory WHERE key LIKE ? ESCAPE '\\' ORDER BY key LIMIT ?",
    ),
    memoryDelete: db.prepare('DELETE FROM memory WHERE key = ?'),
    gateInsert: db.prepare(
      `INSERT INTO gates (run_id, id, node_id, question, payload, status, created_at)
       VALUES (@run_id, @id, @node_id, @question, @payload, @status, @created_at)`,
    ),
    gateClose: db.prepare(
      `UPDATE gates SET status = @status, answer = @answer, via = @via, closed_at = @closed_at
       WHERE run_id = @run_id AND id = @id AND status = 'open'`,
    ),
    gateGet: db.prepare('SELECT * FROM gates WHERE run_id = ? AND id = ?'),
    windowGet: db.prepare(
      'SELECT tokens, requests FROM budget_windows WHERE key = ? AND period_start = ?',
    ),
    windowAdd: db.prepare(
      `INSERT INTO budget_windows (key, period_start, tokens, requests) VALUES (@key, @period_start, @tokens, @requests)
       ON CONFLICT (key, period_start) DO UPDATE SET tokens = tokens + excluded.tokens, requests = requests + excluded.requests`,
    ),
  };
}
