export { builtinTools, type BuiltinToolsOptions } from './builtin-tools.js';
export { DEFAULT_BUILTIN_LIMITS } from './builtin-context.js';
export { execEnv } from './exec-env.js';
export { runCommand } from './run-command.js';
