import type { SqlDatabase } from './sql-database.js';

/**
 * Deletes the runs created before `before` that are not running, with their nodes, events,
 * transcripts and gates; returns their ids. `dryRun` only lists them.
 */
export function pruneRuns(
  db: SqlDatabase,
  before: number,
  options: { dryRun?: boolean } = {},
): string[] {
  const ids = (
    db
      .prepare(
        "SELECT id FROM runs WHERE created_at < ? AND status <> 'running' ORDER BY created_at",
      )
      .all(before) as { id: string }[]
  ).map((row) => row.id);
  if (options.dryRun === true || ids.length === 0) return ids;
  const tables = ['events', 'transcripts', 'gates', 'nodes'];
  const statements = tables.map((table) => db.prepare(`DELETE FROM ${table} WHERE run_id = ?`));
  const deleteRun = db.prepare('DELETE FROM runs WHERE id = ?');
  db.transaction(() => {
    for (const id of ids) {
      for (const statement of statements) statement.run(id);
      deleteRun.run(id);
    }
  })();
  return ids;
}
