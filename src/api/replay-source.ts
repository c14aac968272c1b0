import { existsSync } from 'node:fs';
import { importRunFile } from '../replay/index.js';
import type { SqliteStore } from '../store/index.js';

/**
 * The run a replay replays: `recorded` itself when the store has a run of that id, else the run of
 * the run file at that path, imported into the store (once).
 */
export function recordedRunOf(store: SqliteStore, recorded: string): string {
  if (store.getRun(recorded) !== undefined || !existsSync(recorded)) return recorded;
  return importRunFile(store, recorded);
}
