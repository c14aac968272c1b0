import type { Plan } from './plan.js';

const RUN_LOG_SUFFIX = '.run.toml';

/**
 * The authored plan a run-log belongs to: `plan.run.toml` → `plan.toml`. A path that is not a
 * run-log is its own authored plan.
 */
export function authoredPlanPath(file: string): string {
  return file.endsWith(RUN_LOG_SUFFIX) ? `${file.slice(0, -RUN_LOG_SUFFIX.length)}.toml` : file;
}

/**
 * The plan a resume runs: everything from the authored plan — instructions, dependencies and
 * every leaf's authority (`caveat_policy`, write lane, `verify`) — and from the run-log only what
 * a run writes there: each leaf's `status`, `result` and `artifact_ref`. A run-log edited to widen
 * a leaf widens nothing. A subtask the run-log has and the plan no longer has is dropped (and
 * named); one the plan added starts `pending`.
 */
export function resumePlan(authored: Plan, runLog: Plan): { plan: Plan; dropped: string[] } {
  const logged = new Map(runLog.subtask.map((subtask) => [subtask.id, subtask]));
  const known = new Set(authored.subtask.map((subtask) => subtask.id));
  const plan: Plan = {
    ...authored,
    subtask: authored.subtask.map((subtask) => {
      const log = logged.get(subtask.id);
      const { result: _result, artifact_ref: _artifact, ...rest } = subtask;
      if (log === undefined) return { ...rest, status: 'pending' };
      return {
        ...rest,
        status: log.status,
        ...(log.result === undefined ? {} : { result: log.result }),
        ...(log.artifact_ref === undefined ? {} : { artifact_ref: log.artifact_ref }),
      };
    }),
  };
  const dropped = runLog.subtask.map((s) => s.id).filter((id) => !known.has(id));
  return { plan, dropped };
}
