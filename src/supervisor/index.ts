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
export { ChildLauncher, resolveChildCommand, snapshotCommand } from './child-launcher.js';
export {
  ensureChildSnapshot,
  SNAPSHOT_ENV,
  snapshotEntryPath,
  snapshotPath,
  type SnapshotState,
} from './child-snapshot.js';
export { outcomeOf } from '../protocol/index.js';
export {
  spawnFailure,
  syntheticEnd,
  terminalReport,
  type ChildEnd,
  type TerminalReport,
} from './child-end.js';
export { ChildPool, type ChildPoolOptions } from './child-pool.js';
export {
  OutputRelay,
  type ChildHandle,
  type ChildListeners,
  type ChildOutput,
  type ProcessExit,
} from './child-handle.js';
export { ChildProcess, type ChildProcessOptions } from './child-process.js';
export { InMemoryChild } from './in-memory-child.js';
export {
  failResponder,
  firstResponder,
  HumanGates,
  storeResponder,
  type HumanAnswer,
  type HumanResponder,
} from './human-gates.js';
export { admitSpawn, type SpawnLimits } from './spawn-chokepoint.js';
export {
  PROVIDERS,
  PROVIDER_NAMES,
  requireCapabilities,
  type FleetPort,
  type Provider,
  type ProviderName,
  type RemoteStart,
} from './providers.js';
export { cut, distillResult } from './distill.js';
export { LiveNode, type NodeMode } from './live-node.js';
export { callSignal, onAbort } from './on-abort.js';
export { sleep } from './sleep.js';
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
export { NodeRunner, type NodeRunnerOptions } from './node-runner.js';
export { ProcessRun, type ProcessRunHandlers, type ProcessRunOptions } from './process-run.js';
export {
  DEFAULT_GOVERNOR,
  RestartGovernor,
  type GovernorDecision,
  type GovernorSettings,
} from './restart-governor.js';
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
export { Supervisor } from './supervisor.js';
export type {
  NodeResult,
  RootTemplate,
  SupervisorEvent,
  SupervisorOptions,
} from './supervisor-options.js';
export { DEFAULT_TIMING, pingIntervalMs, timingFromEnv, type Timing } from './timing.js';
export { Tree, type TreeNode } from './tree.js';
export { subtreeUsage } from './usage-rollup.js';
export { type ResumeState } from './resumed-run.js';
export { KILL_POINTS, killAtOf, type KillPoint } from './kill-points.js';
