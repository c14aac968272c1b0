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
 * the store was opened); a run whose lease a live supervisor holds, a run that ended, and a plan
 * run (it resumes with `arbor plan resume`) are refused with a message saying so.
 */
export function planResume(store: SqliteStore, runId: string): ResumePlan {
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
  if (run.meta.plan !== undefined)
    throw new ArborError(
      'config',
      `Run \`${runId}\` is a plan run: resume it with \`arbor plan resume PLAN --run-log LOG\`.`,
    );
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
 * The root's limits on resume: as recorded, with the deadline counting only the time the run was
 * active; `deadlineMs` (from `--deadline` on `resume`) replaces the recorded one, so it may extend it.
 */
export function resumedLimits(
  recorded: Limits,
  activeMs: number,
  deadlineMs: number | undefined,
): Limits {
  const total = deadlineMs ?? recorded.deadline_ms;
  if (total === undefined) return recorded;
  return { ...recorded, deadline_ms: Math.max(1, total - activeMs) };
}
