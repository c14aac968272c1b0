export {
  DivergenceKindSchema,
  DivergenceSchema,
  NodePairSchema,
  NodeSideSchema,
  RunDiffSchema,
  RunSideSchema,
  type Divergence,
  type DivergenceKind,
  type NodePair,
  type NodeSide,
  type RunDiff,
  type RunSide,
} from './run-diff-schema.js';
export { diffMessages, type MessageDivergence } from './message-diff.js';
export { diffRuns, readRecordedRun, type RecordedNode, type RecordedRun } from './run-diff.js';
