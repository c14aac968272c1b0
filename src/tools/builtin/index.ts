export { builtinTools, type BuiltinToolsOptions } from './builtin-tools.js';
export { DEFAULT_BUILTIN_LIMITS, type BuiltinLimits } from './builtin-context.js';
export { execEnv } from './exec-env.js';
export {
  PathGuard,
  type GuardedOpen,
  type OpenWant,
  type PathAxis,
  type PathGuardOptions,
} from './path-guard.js';
export {
  runCommand,
  type CommandResult,
  type CommandStop,
  type RunCommandOptions,
} from './run-command.js';
