/**
 * arbor as a library: `Arbor.open(options)`, then `arbor.run(instruction)` or
 * `arbor.runPlan(plan)`, each with a handle that streams the run's events and resolves with its
 * result. Host tools are defined with `defineTool`. See docs/api.md.
 */
export { Arbor } from './api/arbor.js';
export type {
  ArborOptions,
  BudgetOption,
  BudgetWindowInput,
  EndpointOption,
  GrantOption,
  IntelligenceOption,
  LimitsOption,
  McpServerInput,
  NetCredentialOption,
  PlanRunOptions,
  PolicyRuleInput,
  ReplayOptions,
  ResumeOptions,
  RunOptions,
  SecurityOption,
} from './api/options.js';
export { RunHandle, type RunResult } from './api/run-handle.js';
export { RunHistory } from './api/run-history.js';
export type { GateQuestion } from './api/gate-answers.js';
export {
  defineTool,
  type HostTool,
  type HostToolContext,
  type HostToolSpec,
} from './tools/host-tool.js';
export {
  DEFAULTS,
  EVENT_TYPES,
  EXIT,
  exitCodeFor,
  fromWireEvent,
  toWireEvent,
  type ArborEvent,
  type ArborEventOf,
  type ArborEventType,
  type EventBase,
  type EventFields,
  type ExitCode,
} from './runtime/index.js';
export {
  ArborError,
  isArborError,
  type ErrorCode,
  type TerminalStatus,
  type TrifectaTag,
  type Usage,
} from './protocol/index.js';
export type { Plan, Subtask } from './plan/index.js';
export type { NodeRecord, RunRecord } from './supervisor/index.js';
