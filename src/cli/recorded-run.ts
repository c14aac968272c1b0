import { existsSync } from 'node:fs';
import { recordedIntelOf, type RecordedIntel } from '../config/index.js';
import { SqliteStore } from '../store/index.js';

/**
 * The intelligence run `runId` recorded in the store at `dbPath`, or `undefined` when the store,
 * the run or the record is missing (resume then says what it lacks, or that there is no run).
 */
export function recordedIntelligence(dbPath: string, runId: string): RecordedIntel | undefined {
  if (dbPath !== ':memory:' && !existsSync(dbPath)) return undefined;
  const store = new SqliteStore(dbPath);
  try {
    const run = store.getRun(runId);
    return run === undefined ? undefined : recordedIntelOf(run.meta);
  } finally {
    store.close();
  }
}
