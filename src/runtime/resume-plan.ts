import { readFileSync } from 'node:fs';
import { parsePlanToml } from '../plan/index.js';
import { ArborError, type Limits } from '../protocol/index.js';
import type { SqliteStore } from '../store/index.js';
import type { NodeRecord } from '../supervisor/index.js';

/** What resuming a run starts from, once the run is known to be resumable. */
export interface ResumePlan {
  root: NodeRecord;
  nodes: NodeRecord[];
  /** Milliseconds the run was active before it was interrupted. */
  activeMs: number;
}

/**
 * Checks that a run can be resumed and reads what resuming it needs. Only an `interrupted` run
 * can be (a run still marked `running` is checked again first: its supervisor may have died since
 * the store was opened); a run whose lease a live supervisor holds, a run that ended, and (unless
 * `plan` says it is one) a plan run, which resumes from its run-log, are refused with a message
 * saying so.
 */
export function planResume(
  store: SqliteStore,
  runId: string,
  options: { plan?: boolean } = {},
): ResumePlan {
  let run = store.getRun(runId);
  if (run === undefined)
    throw new ArborError('config', `There is no run \`${runId}\` in the store.`);
  if (run.status === 'running') {
    store.reapInterrupted();
    run = store.getRun(runId) ?? run;
  }
  const hold = store.runHold(runId);
  if (run.status === 'running') {
    const owner = hold?.owner;
    throw new ArborError(
      'config',
      `Run \`${runId}\` is still running${owner === undefined ? '' : ` under pid ${String(owner.pid)} on host ${owner.host}`}${hold?.leaseUntil === undefined ? '' : `, which holds its lease until ${new Date(hold.leaseUntil).toISOString()}`}: only an interrupted run can be resumed.`,
    );
  }
  if (run.status !== 'interrupted')
    throw new ArborError(
      'config',
      `Run \`${runId}\` already ended \`${run.status}\`: only an interrupted run can be resumed.`,
    );
  if (run.meta.plan !== undefined && options.plan !== true) {
    const log = typeof run.meta.run_log === 'string' ? run.meta.run_log : 'PLAN.run.toml';
    throw new ArborError(
      'config',
      `Run \`${runId}\` is a plan run: it resumes from its run-log, with \`arbor plan resume ${log}\`.`,
    );
  }
  const nodes = store.listNodes(runId);
  const root = nodes.find((n) => n.parentId === undefined);
  if (root === undefined)
    throw new ArborError(
      'config',
      `Run \`${runId}\` recorded no root node: there is nothing to resume.`,
    );
  return { root, nodes, activeMs: hold?.activeMs ?? 0 };
}

/**
 * Takes an interrupted run for this process, or refuses: another arbor is taking it up (a server
 * looking for abandoned runs, an `arbor resume`), and only one may resume it.
 */
export function takeOverRun(store: SqliteStore, runId: string): void {
  if (store.takeOverRun(runId)) return;
  const owner = store.runHold(runId)?.owner;
  throw new ArborError(
    'config',
    `Run \`${runId}\` is being taken up by another arbor${owner === undefined ? '' : ` (pid ${String(owner.pid)} on host ${owner.host})`}: only one may resume it.`,
  );
}

/**
 * The root's limits on resume: as recorded, with the deadline counting only the time the run was
 * active; `deadlineMs` (from `--deadline` on `resume`) replaces the recorded one, so it may extend it.
 * A warm session's deadline is per turn (each turn gets all of it): it is not counted down.
 */
export function resumedLimits(
  recorded: Limits,
  activeMs: number,
  deadlineMs: number | undefined,
  perTurn = false,
): Limits {
  const total = deadlineMs ?? recorded.deadline_ms;
  if (total === undefined) return recorded;
  return { ...recorded, deadline_ms: perTurn ? total : Math.max(1, total - activeMs) };
}

/**
 * The run a resume of a run-log continues: the run it names, when the store holds that run as
 * interrupted (a run marked running whose supervisor is gone is marked so first). For a run that
 * ended, a resume records a new run instead (`undefined`).
 */
export function continuedRun(store: SqliteStore, runId: string | undefined): string | undefined {
  if (runId === undefined) return undefined;
  store.reapInterrupted();
  return store.getRun(runId)?.status === 'interrupted' ? runId : undefined;
}

/** The run a run-log file names, read at once; `undefined` when it cannot be read (yet). */
export function runLogRun(file: string): string | undefined {
  try {
    return parsePlanToml(readFileSync(file, 'utf8')).run;
  } catch {
    // An unreadable or invalid run-log is reported, with its reason, where the plan is prepared.
    return undefined;
  }
}
