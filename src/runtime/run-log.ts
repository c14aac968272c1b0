import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ArborError } from '../protocol/index.js';
import type { RunStore } from '../supervisor/index.js';

/** The event a plan run records each time it has written its run-log. */
const RUN_LOG_EVENT = 'plan.run_log';

function digestOf(text: string | Buffer): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * Records, durably, that the run is about to write `text` to its run-log at `file`. It is called
 * before the rename, so whatever a crash leaves in place — the previous text or this one — is a
 * text the run recorded.
 */
export function recordRunLog(store: RunStore, runId: string, file: string, text: string): void {
  store.appendEvent({
    runId,
    ts: Date.now(),
    kind: RUN_LOG_EVENT,
    data: { path: path.resolve(file), sha256: digestOf(text) },
  });
  store.flush();
}

/**
 * Checks, before a resume trusts a run-log's statuses and results, that it is byte for byte a
 * text the run named in it wrote (a sandboxed command may write the file in the moment after
 * arbor replaces it). A run-log that names no run, a run this store does not know, or bytes the
 * run never wrote is refused with a usage error, unless the operator says to trust it.
 */
export async function checkRunLog(
  file: string,
  runId: string | undefined,
  store: Pick<RunStore, 'listEvents'>,
): Promise<void> {
  const hint =
    'its statuses and results cannot be trusted; pass `--trust-run-log` to resume from it anyway, or run the plan again';
  if (runId === undefined)
    throw new ArborError('usage', `${file} names no run that wrote it: ${hint}.`);
  const written = new Set(
    store
      .listEvents(runId)
      .filter((e) => e.kind === RUN_LOG_EVENT && e.data.path === path.resolve(file))
      .map((e) => e.data.sha256),
  );
  if (written.size === 0) {
    throw new ArborError(
      'usage',
      `${file} says run ${runId} wrote it, but this store has no record of that: ${hint}.`,
    );
  }
  const digest = digestOf(await readFile(file));
  if (!written.has(digest)) {
    throw new ArborError('usage', `${file} was changed since run ${runId} last wrote it: ${hint}.`);
  }
}
