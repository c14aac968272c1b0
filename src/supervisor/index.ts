export {
  Budget,
  BudgetWindowSchema,
  Ledger,
  OVERDRAW_WAIT_MS,
  type BudgetSettings,
  type BudgetWindow,
  type Grant,
} from './budget/index.js';
export { childCommand, childEntryPath, childEnv, type ChildCommand } from './child-entry.js';
export { resolveChildCommand, snapshotCommand } from './child-launcher.js';
export {
  ensureChildSnapshot,
  SNAPSHOT_ENV,
  snapshotEntryPath,
  snapshotPath,
  type SnapshotState,
} from './child-snapshot.js';
export { outcomeOf } from '../protocol/index.js';
export { spawnFailure, syntheticEnd, type ChildEnd } from './child-end.js';
export { ChildPool, type ChildPoolOptions } from './child-pool.js';
export {
  OutputRelay,
  type ChildHandle,
  type ChildListeners,
  type ProcessExit,
} from './child-handle.js';
export { ChildProcess } from './child-process.js';
export {
  failResponder,
  firstResponder,
  HumanGates,
  storeResponder,
  type HumanAnswer,
  type HumanResponder,
} from './human-gates.js';
export { admitSpawn } from './spawn-chokepoint.js';
export {
  PROVIDERS,
  PROVIDER_NAMES,
  requireCapabilities,
  type FleetEventType,
  type FleetPort,
  type Provider,
  type ProviderName,
  type RemoteStart,
} from './providers.js';
export { cut, distillResult } from './distill.js';
export { LiveNode } from './live-node.js';
export { callSignal } from './on-abort.js';
export { sleep } from './sleep.js';
export { killLadder, type LadderTarget } from './kill-ladder.js';
export { classify } from './liveness.js';
export { NodeRunner } from './node-runner.js';
export { ProcessRun, type ProcessRunHandlers } from './process-run.js';
export type { EventRecord, NodeRecord, RunRecord, RunStore } from '../store/store-port.js';
export { Supervisor } from './supervisor.js';
export type { NodeResult, RootTemplate, SupervisorEvent } from './supervisor-options.js';
export { DEFAULT_TIMING, pingIntervalMs, timingFromEnv, type Timing } from './timing.js';
export { Tree, type TreeNode } from './tree.js';
export { subtreeUsage } from './usage-rollup.js';
export { type ResumeState } from './resume-state.js';
export { KILL_POINTS, killAtOf } from './kill-points.js';
