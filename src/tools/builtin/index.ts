export { builtinTools, everyBuiltinTool, type BuiltinToolsOptions } from './builtin-tools.js';
export {
  DEFAULT_BUILTIN_LIMITS,
  FILE_TOOL_TRIFECTA,
  type BuiltinLimits,
} from './builtin-context.js';
export { execEnv } from './exec-env.js';
export {
  EXEC_OFFLINE_TAGS,
  EXEC_TRIFECTA_TAGS,
  execTrifecta,
  execTrifectaTags,
} from './exec-tool.js';
export { HTTP_FETCH_TAGS, HTTP_FETCH_TRIFECTA } from './http-fetch.js';
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
