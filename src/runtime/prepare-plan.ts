import {
  authoredPlanPath,
  readPlanFile,
  resumePlan,
  validatePlan,
  type Plan,
  type Subtask,
} from '../plan/index.js';
import { ArborError } from '../protocol/index.js';

/** A plan read and checked for a run. */
export interface PreparedPlan {
  plan: Plan;
  /** The run-log a resume continues (its statuses and results only). */
  runLog: Plan | undefined;
  /** Subtasks of the run-log the authored plan no longer has. */
  dropped: string[];
  /** The authored plan a resume takes every leaf's instruction and authority from. */
  authoredPath: string;
}

/**
 * Reads a plan for `plan run` (every subtask starts over) or a run-log for `plan resume` (every
 * leaf's instruction and authority from the authored plan, statuses and results from the
 * run-log). A plan that is not valid is a `plan_invalid` error listing every problem, one per
 * line, each prefixed with the file it is in.
 */
export async function preparePlan(
  file: string,
  options: { resume: boolean; authored?: string | undefined },
): Promise<PreparedPlan> {
  const authoredPath = options.authored ?? authoredPlanPath(file);
  const plan = await readPlanFile(options.resume ? authoredPath : file);
  let runLog: Plan | undefined;
  let dropped: string[] = [];
  if (options.resume && authoredPath !== file) {
    runLog = await readPlanFile(file);
    const resumed = resumePlan(plan, runLog);
    plan.subtask = resumed.plan.subtask;
    dropped = resumed.dropped;
  }
  const findings = validatePlan(plan);
  if (findings.length > 0) {
    const shown = options.resume ? authoredPath : file;
    const problems = findings.map((f) => `${shown}: ${f.message} [${f.code}]`);
    throw new ArborError('plan_invalid', problems.join('\n'), { details: { problems } });
  }
  if (!options.resume) for (const subtask of plan.subtask) restart(subtask);
  return { plan, runLog, dropped, authoredPath };
}

/** A fresh run starts every subtask over: the authored statuses and results are not carried. */
function restart(subtask: Subtask): void {
  subtask.status = 'pending';
  delete subtask.result;
  delete subtask.artifact_ref;
  delete subtask.refused_calls;
}
