import { ArborError } from '../protocol/index.js';
import { EXIT } from '../runtime/index.js';
import { DEFAULT_DB_PATH, withStore, type SqliteStore } from '../store/index.js';
import type { CliIo } from './output.js';

/** A run of the store, or a usage error that names the id and says how to list them. */
export function mustGetRun(store: SqliteStore, runId: string) {
  const run = store.getRun(runId);
  if (run === undefined)
    throw new ArborError(
      'usage',
      `No run \`${runId}\` in this store (\`arbor runs list\` shows them).`,
    );
  return run;
}

/** Runs `body` on the store `--db` (else `ARBOR_DB`, else the default) names. */
export async function inStore(
  db: string | undefined,
  io: CliIo,
  body: (store: SqliteStore) => Promise<void>,
): Promise<number> {
  await withStore(db ?? io.env.ARBOR_DB ?? DEFAULT_DB_PATH, body);
  return EXIT.ok;
}
