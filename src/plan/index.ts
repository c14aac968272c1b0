export { cyclicComponents, functionalCycles, shortestCycleThrough } from './find-cycles.js';
export { parsePlanToml, type ParsePlanOptions } from './parse-plan-toml.js';
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
export {
  AGGREGATIONS,
  AggregationSchema,
  PlanSchema,
  type Aggregation,
  type Plan,
  type PlanInput,
} from './plan.js';
export { STATUS_MARKERS, renderPlan } from './render-plan.js';
export { stringifyPlan } from './stringify-plan.js';
export {
  ArtifactRefSchema,
  NODE_KINDS,
  NodeKindSchema,
  SUBTASK_STATUSES,
  SubtaskSchema,
  SubtaskStatusSchema,
  type ArtifactRef,
  type NodeKind,
  type Subtask,
  type SubtaskInput,
  type SubtaskStatus,
} from './subtask.js';
export {
  FINDING_CODES,
  validatePlan,
  type FindingCode,
  type PlanFinding,
  type ValidatePlanOptions,
} from './validate-plan.js';
export { BranchTracker, branchStatus } from './branch-status.js';
export {
  FAILURE_POLICIES,
  runSchedule,
  type FailurePolicy,
  type LeafOutcome,
  type ScheduleOptions,
  type ScheduleSummary,
} from './scheduler.js';
export { runVerifyGate, type VerifyOptions } from './verify-gate.js';
export { PlanWorktrees, type MergeConflict, type MergeReport } from './worktrees.js';
export { RepoGit, type GitReach, type RepoGitOptions } from './repo-git.js';
export { RunLogWriter } from './run-log-writer.js';
export { authoredPlanPath, resumePlan } from './resume-plan.js';
