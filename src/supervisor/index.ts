export {
  Budget,
  BudgetWindowSchema,
  Ledger,
  OVERDRAW_WAIT_MS,
  type BudgetSettings,
  type BudgetWindow,
  type Grant,
} from './budget/index.js';
export { childCommand, childEntryPath, childEnv, type ChildCommand } from './launch/child-entry.js';
export { resolveChildCommand, snapshotCommand } from './launch/child-launcher.js';
export {
  ensureChildSnapshot,
  SNAPSHOT_ENV,
  snapshotEntryPath,
  snapshotPath,
  type SnapshotState,
} from './launch/child-snapshot.js';
export { outcomeOf } from '../protocol/index.js';
export { spawnFailure, syntheticEnd, type ChildEnd } from './node/child-end.js';
export { ChildPool, type ChildPoolOptions } from './launch/child-pool.js';
export {
  OutputRelay,
  type ChildHandle,
  type ChildListeners,
  type ProcessExit,
} from './launch/child-handle.js';
export { ChildProcess } from './launch/child-process.js';
export {
  failResponder,
  firstResponder,
  HumanGates,
  storeResponder,
  type HumanAnswer,
  type HumanResponder,
} from './gates/human-gates.js';
export { admitSpawn } from './spawn/spawn-chokepoint.js';
export {
  PROVIDERS,
  PROVIDER_NAMES,
  requireCapabilities,
  type FleetEventType,
  type FleetPort,
  type Provider,
  type ProviderName,
  type RemoteStart,
} from './launch/providers.js';
export { cut, distillResult } from './node/distill.js';
export { LiveNode } from './node/live-node.js';
export { callSignal } from './on-abort.js';
export { sleep } from './sleep.js';
export { killLadder, type LadderTarget } from './launch/kill-ladder.js';
export { classify } from './node/liveness.js';
export { NodeRunner } from './node/node-runner.js';
export { ProcessRun, type ProcessRunHandlers } from './launch/process-run.js';
export type { EventRecord, NodeRecord, RunRecord, RunStore } from '../store/store-port.js';
export { Supervisor } from './supervisor.js';
export type { NodeResult, RootTemplate, SupervisorEvent } from './supervisor-options.js';
export { DEFAULT_TIMING, pingIntervalMs, timingFromEnv, type Timing } from './timing.js';
export { Tree, type TreeNode } from './tree.js';
export { subtreeUsage } from './usage-rollup.js';
export { describePriceTable, hasDefaultPrice, loadPriceTable } from './pricing/index.js';
export { type ResumeState } from './resume/resume-state.js';
export type { ReplaySource, ReplayedNode } from './replay-source.js';
export { KILL_POINTS, killAtOf } from './launch/kill-points.js';
export { DEFAULT_EGRESS_LIMITS, EgressHost, type EgressHostLimits } from './launch/egress-host.js';
