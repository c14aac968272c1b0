export { childCommand, childEntryPath, childEnv, type ChildCommand } from './child-entry.js';
export { ChildProcess, type ChildProcessOptions, type ProcessExit } from './child-process.js';
export {
  killLadder,
  type LadderOptions,
  type LadderOutcome,
  type LadderStep,
  type LadderTarget,
} from './kill-ladder.js';
export {
  classify,
  needsTeardown,
  type Health,
  type LivenessLimits,
  type LivenessState,
} from './liveness.js';
export {
  ProcessRun,
  type ChildEnd,
  type ProcessRunHandlers,
  type ProcessRunOptions,
} from './process-run.js';
export type {
  EventRecord,
  NewEvent,
  NodePatch,
  NodeRecord,
  NodeStatus,
  RunRecord,
  RunStatus,
  RunStore,
} from './store-port.js';
export {
  Supervisor,
  type NodeResult,
  type PayloadTemplate,
  type SupervisorEvent,
  type SupervisorOptions,
} from './supervisor.js';
export { DEFAULT_TIMING, pingIntervalMs, timingFromEnv, type Timing } from './timing.js';
export { Tree, type TreeNode } from './tree.js';
