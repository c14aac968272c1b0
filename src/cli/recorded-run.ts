import { existsSync, readFileSync } from 'node:fs';
import { parse } from 'smol-toml';
import { recordedIntelOf, type RecordedIntel } from '../config/index.js';
import { runLogPath } from '../plan/index.js';
import { withStore } from '../store/index.js';

/**
 * The intelligence run `runId` recorded in the store at `dbPath`, or `undefined` when the store,
 * the run or the record is missing (resume then says what it lacks, or that there is no run).
 */
export function recordedIntelligence(dbPath: string, runId: string): RecordedIntel | undefined {
  if (dbPath !== ':memory:' && !existsSync(dbPath)) return undefined;
  return withStore(dbPath, (store) => {
    const run = store.getRun(runId);
    return run === undefined ? undefined : recordedIntelOf(run.meta);
  });
}

/**
 * The intelligence the run that last wrote the run-log of `planFile` recorded, or `undefined`
 * when the run-log cannot be read or names no run (the plan's own reading reports why, later).
 */
export function recordedPlanIntelligence(
  planFile: string,
  dbPath: string,
): RecordedIntel | undefined {
  let runId: unknown;
  try {
    runId = parse(readFileSync(runLogPath(planFile), 'utf8')).run;
  } catch {
    return undefined;
  }
  return typeof runId === 'string' ? recordedIntelligence(dbPath, runId) : undefined;
}
