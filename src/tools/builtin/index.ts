export { builtinTools, everyBuiltinTool, type BuiltinToolsOptions } from './builtin-tools.js';
export { DEFAULT_BUILTIN_LIMITS } from './builtin-context.js';
export { execEnv } from './exec-env.js';
export { EXEC_OFFLINE_TAGS, EXEC_TRIFECTA_TAGS } from './exec-tool.js';
export { HTTP_FETCH_TAGS } from './http-fetch.js';
export { runCommand } from './run-command.js';
