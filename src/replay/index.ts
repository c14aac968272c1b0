export { RunDiffSchema, type NodeSide, type RunDiff } from './run-diff-schema.js';
export { diffRuns, readRecordedRun } from './run-diff.js';
