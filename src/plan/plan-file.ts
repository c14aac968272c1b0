import { randomBytes } from 'node:crypto';
import { open, readFile, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import { ArborError } from '../protocol/index.js';
import { parsePlanToml } from './parse-plan-toml.js';
import type { Plan } from './plan.js';
import { stringifyPlan } from './stringify-plan.js';

const RUN_LOG_SUFFIX = '.run.toml';

/**
 * Where a run of `planPath` keeps its log: `plan.toml` → `plan.run.toml`, beside it. A run never
 * writes the authored file, so what a person reviewed stays as they left it; resuming from a
 * run-log keeps writing that same log, so a `.run.toml` path maps to itself.
 */
export function runLogPath(planPath: string): string {
  if (planPath.endsWith(RUN_LOG_SUFFIX)) return planPath;
  const base = planPath.endsWith('.toml') ? planPath.slice(0, -'.toml'.length) : planPath;
  return `${base}${RUN_LOG_SUFFIX}`;
}

/**
 * Reads and parses a plan file. A file that cannot be read is a `config` error, one that is not a
 * plan is `plan_invalid`; both messages name the file.
 */
export async function readPlanFile(
  file: string,
  { signal }: { signal?: AbortSignal } = {},
): Promise<Plan> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file, signal === undefined ? {} : { signal });
  } catch (error) {
    if (signal?.aborted === true) throw error;
    throw new ArborError(
      'config',
      `Cannot read plan file \`${file}\`: ${describeIoError(error)}.`,
      {
        details: { path: file },
        cause: error,
      },
    );
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch (error) {
    throw new ArborError('plan_invalid', `${file}: expected UTF-8 text, got invalid bytes.`, {
      details: { source: file, problems: [`${file}: expected UTF-8 text, got invalid bytes`] },
      cause: error,
    });
  }
  return parsePlanToml(text, { source: file });
}

/**
 * Replaces `file` with `plan` so that a crash at any moment leaves either the old or the new
 * content, never a torn file: the text goes to a temporary file in the same directory (so the
 * rename stays on one filesystem), is flushed to disk, and is renamed over `file`; then the
 * directory is flushed so the rename itself survives a power loss. `beforeRename` is told the
 * text just before it replaces `file` (to record its digest first, so a crash between the two
 * never leaves a file nobody recorded).
 */
export async function writePlanAtomic(
  file: string,
  plan: Plan,
  {
    signal,
    beforeRename,
  }: { signal?: AbortSignal; beforeRename?: ((text: string) => void) | undefined } = {},
): Promise<void> {
  signal?.throwIfAborted();
  const text = stringifyPlan(plan);
  const dir = path.dirname(file);
  const temp = path.join(dir, `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const handle = await open(temp, 'wx', 0o644);
    try {
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    signal?.throwIfAborted();
    beforeRename?.(text);
    await rename(temp, file);
  } catch (error) {
    // Best effort: the write already failed, and that failure is the one worth reporting.
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  await syncDirectory(dir);
}

async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } catch (error) {
    // Some filesystems cannot fsync a directory; the rename is still atomic there.
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EINVAL' && code !== 'EPERM' && code !== 'EISDIR') throw error;
  } finally {
    await handle.close();
  }
}

function describeIoError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EISDIR') return 'it is a directory';
  if (code === 'EACCES') return 'permission denied';
  return error instanceof Error ? error.message : String(error);
}
