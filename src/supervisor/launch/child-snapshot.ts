import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { arborCacheDir } from '../../authority/index.js';
import { runFile } from '../../tools/index.js';
import { SNAPSHOT_PROBE_ENV, SNAPSHOT_PROBE_REPLY } from '../../child/pool-signals.js';
import { childEntryPath } from './child-entry.js';

/**
 * The child's V8 start-up snapshot: the child bundle's modules loaded and its first-time work done,
 * saved as a heap image that `node --snapshot-blob FILE` starts from instead of loading and
 * compiling the bundle. A snapshot only loads in the exact Node binary that built it, so none is
 * shipped: it is built on first use into arbor's cache, named by a key over the Node binary, the
 * platform and the bundle, and checked by starting it once before it is used. Where it cannot be
 * built or loaded, children start from the bundle, and the state says why.
 */
export interface SnapshotState {
  /** The snapshot to start children from; absent when they start from the bundle. */
  blob?: string;
  /** Why children start from the bundle. */
  reason?: string;
  /** Built by this call (not found in the cache), and how long building and checking took. */
  built: boolean;
  buildMs?: number;
  /** What Node said while building it (its warnings about modules not verified in snapshots). */
  warnings: string[];
}

/** Set to `off` (or `0`) to start every child from the bundle. */
export const SNAPSHOT_ENV = 'ARBOR_CHILD_SNAPSHOT';

/** Longest a build, or its check, may take before the child starts from the bundle instead. */
const BUILD_TIMEOUT_MS = 60_000;
/** Lines of Node's output kept as warnings, each cut to this many characters. */
const MAX_WARNINGS = 20;
const MAX_WARNING_CHARS = 400;

/** The script a snapshot is built from, beside the child bundle; absent in the per-module build. */
export function snapshotEntryPath(): string | undefined {
  const entry = childEntryPath();
  if (!entry.endsWith('child.mjs')) return undefined;
  const script = join(dirname(entry), 'child-snapshot.cjs');
  return existsSync(script) ? script : undefined;
}

/**
 * Where the snapshot for this Node binary and this script lives in the cache. The key covers
 * everything a snapshot is tied to: Node's version, platform and architecture, the binary itself
 * (its path, size and time of change) and the script's bytes.
 */
export function snapshotPath(cacheDir: string, script: string): string {
  const binary = statSync(process.execPath);
  const source = statSync(script);
  // Hashing the script (over a megabyte) is the costly part: it is done once per version of it.
  const stamp = JSON.stringify([script, source.size, source.mtimeMs, binary.size, binary.mtimeMs]);
  let key = keys.get(stamp);
  if (key === undefined) {
    key = createHash('sha256')
      .update(
        JSON.stringify([
          process.version,
          process.platform,
          process.arch,
          process.execPath,
          binary.size,
          binary.mtimeMs,
        ]),
      )
      .update(readFileSync(script))
      .digest('hex')
      .slice(0, 24);
    keys.set(stamp, key);
  }
  return join(cacheDir, 'child-snapshot', `child-${key}.blob`);
}

const keys = new Map<string, string>();

const building = new Map<string, Promise<SnapshotState>>();

/**
 * The snapshot children start from, built and checked first if the cache has none. Never throws:
 * anything that goes wrong is a `reason`, and children start from the bundle. One build per
 * snapshot per process; processes that race build into files of their own and rename them into
 * place, so the cache only ever holds whole, checked snapshots.
 */
export function ensureChildSnapshot(env: NodeJS.ProcessEnv = process.env): Promise<SnapshotState> {
  const setting = env[SNAPSHOT_ENV]?.trim().toLowerCase();
  if (setting === 'off' || setting === '0' || setting === 'false')
    return Promise.resolve({
      reason: `turned off by ${SNAPSHOT_ENV}=${setting}`,
      built: false,
      warnings: [],
    });
  let script: string | undefined;
  let blob: string;
  try {
    script = snapshotEntryPath();
    if (script === undefined)
      return Promise.resolve({
        reason: 'this build of arbor has no snapshot script (dist/bundle/child-snapshot.cjs)',
        built: false,
        warnings: [],
      });
    blob = snapshotPath(arborCacheDir(env), script);
  } catch (error) {
    return Promise.resolve({ reason: messageOf(error), built: false, warnings: [] });
  }
  if (existsSync(blob)) return Promise.resolve({ blob, built: false, warnings: [] });
  let pending = building.get(blob);
  if (pending === undefined) {
    pending = buildSnapshot(script, blob);
    building.set(blob, pending);
  }
  return pending;
}

/** Builds the snapshot into a file of its own, checks that it loads, then renames it into place. */
async function buildSnapshot(script: string, blob: string): Promise<SnapshotState> {
  const started = performance.now();
  const temporary = `${blob}.${String(process.pid)}.${randomBytes(4).toString('hex')}.tmp`;
  let warnings: string[] = [];
  try {
    await mkdir(dirname(blob), { recursive: true, mode: 0o700 });
    const build = await runNode(['--snapshot-blob', temporary, '--build-snapshot', script], {});
    warnings = warningLines(build.stderr);
    if (!build.ok) throw new Error(`building it failed (${build.exit}): ${lastLine(build.stderr)}`);
    const probe = await runNode(['--snapshot-blob', temporary], { [SNAPSHOT_PROBE_ENV]: '1' });
    if (!probe.ok || probe.stdout.trim() !== SNAPSHOT_PROBE_REPLY)
      throw new Error(`it was built but does not load (${probe.exit}): ${lastLine(probe.stderr)}`);
    await rename(temporary, blob);
    return { blob, built: true, buildMs: Math.round(performance.now() - started), warnings };
  } catch (error) {
    await rm(temporary, { force: true }).catch(() => undefined);
    return { reason: `the child snapshot: ${messageOf(error)}`, built: true, warnings };
  }
}

interface NodeRun {
  ok: boolean;
  /** How it ended: `exit N`, `killed by SIGNAL`, or why it could not start. */
  exit: string;
  stdout: string;
  stderr: string;
}

/** Runs this Node binary with a bare environment, collecting its output. */
async function runNode(args: string[], extraEnv: NodeJS.ProcessEnv): Promise<NodeRun> {
  const run = await runFile(process.execPath, args, {
    env: { PATH: process.env.PATH ?? '', ...extraEnv },
    timeoutMs: BUILD_TIMEOUT_MS,
    killSignal: 'SIGKILL',
  });
  const exit =
    run.error !== undefined
      ? run.error.message
      : run.signal !== null
        ? `killed by ${run.signal}`
        : `exit ${String(run.code)}`;
  return { ok: run.code === 0, exit, stdout: run.stdout, stderr: run.stderr };
}

/** Node's warnings, one line each, without its advice on how to trace them. */
function warningLines(stderr: string): string[] {
  return stderr
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('(Use `node --trace-warnings'))
    .slice(0, MAX_WARNINGS)
    .map((line) => line.slice(0, MAX_WARNING_CHARS));
}

function lastLine(text: string): string {
  const lines = text.trim().split('\n');
  return (
    (lines.findLast((line) => /error/i.test(line)) ?? lines.at(-1) ?? '').slice(0, 300) ||
    'no output'
  );
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
