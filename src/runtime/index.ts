export {
  EVENT_TYPES,
  type ArborEvent,
  type ArborEventOf,
  type ArborEventType,
  type EventBase,
  type EventFields,
} from './events.js';
export { eventOf } from './event-codec.js';
export { fromWireEvent, toCamel, toWireEvent } from '../protocol/index.js';
export { mintRunId } from './run-id.js';
export { DEFAULTS, type RunConfig, type SecuritySettings } from './settings.js';
export { prepareRunSafety, trustContext, type RunSafety } from './run-safety.js';
export { checkRunLog } from './run-log.js';
export { Runtime, type RunStart, type RuntimeOptions, type StartedRun } from './runtime.js';
export { startPlan, type PlanEnd, type PlanStart, type StartedPlan } from './plan-session.js';
export { EXIT, exitCodeFor, type ExitCode } from './exit-codes.js';
export { preparePlan } from './prepare-plan.js';
export { continuedRun, planResume, runLogRun } from './resume-plan.js';
