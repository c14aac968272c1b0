export { cyclicComponents, functionalCycles, shortestCycleThrough } from './find-cycles.js';
export { parsePlanToml } from './parse-plan-toml.js';
export { readPlanFile, runLogPath, writePlanAtomic } from './plan-file.js';
export { planWarnings } from './plan-warnings.js';
export {
  branchIds,
  children,
  finalLeaves,
  isBranch,
  leaves,
  roots,
  subtaskById,
} from './plan-tree.js';
export { AGGREGATIONS, PlanSchema, type Plan, type PlanInput } from './plan.js';
export { renderPlan } from './render-plan.js';
export { stringifyPlan } from './stringify-plan.js';
export {
  NODE_KINDS,
  SUBTASK_STATUSES,
  SubtaskSchema,
  type Subtask,
  type SubtaskInput,
  type SubtaskStatus,
} from './subtask.js';
export { validatePlan, type FindingCode } from './validate-plan.js';
export {
  FAILURE_POLICIES,
  runSchedule,
  type FailurePolicy,
  type LeafOutcome,
  type ScheduleOptions,
  type ScheduleSummary,
} from './scheduler.js';
export { runVerifyGate } from './verify-gate.js';
export { PlanWorktrees, type MergeReport } from './worktrees.js';
export { RepoGit } from './repo-git.js';
export { RunLogWriter } from './run-log-writer.js';
export { authoredPlanPath, resumePlan } from './resume-plan.js';
