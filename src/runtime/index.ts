export {
  EVENT_TYPES,
  type ArborEvent,
  type ArborEventOf,
  type ArborEventType,
  type EventBase,
  type EventFields,
} from './events.js';
export { eventOf, fromWireEvent, toCamel, toSnake, toWireEvent } from './event-codec.js';
export { mintRunId } from './run-id.js';
export { DEFAULTS, type RunConfig, type SandboxChoice, type SecuritySettings } from './settings.js';
export { prepareRunSafety, trustContext, type RunSafety } from './run-safety.js';
export { leafDispatcher, type LeafDispatchOptions } from './plan-leaf.js';
export { checkRunLog, digestOf, recordRunLog, RUN_LOG_EVENT } from './run-log.js';
export {
  Runtime,
  rootTemplate,
  type RunStart,
  type RuntimeOptions,
  type StartedRun,
} from './runtime.js';
export { startPlan, type PlanEnd, type PlanStart, type StartedPlan } from './plan-session.js';
export { EXIT, exitCodeFor, type ExitCode } from './exit-codes.js';
export { preparePlan, type PreparedPlan } from './prepare-plan.js';
export { continuedRun, planResume, runLogRun } from './resume-plan.js';
export { resolvePeerSecrets, resolveServerSecrets } from './server-secrets.js';
