export { RunDiffSchema, type NodeSide, type RunDiff } from './run-diff-schema.js';
export { comparePaths, diffRuns, readRecordedRun } from './run-diff.js';
export {
  parseForkPoint,
  replayDivergences,
  replayNotes,
  startReplay,
  type ReplayDivergence,
  type ReplayRequest,
} from './replay-run.js';
export { importRun, importRunFile, readRunFile, type RunFile } from './import-run.js';
export { recordedPlan, startPlanReplay } from './plan-replay.js';
