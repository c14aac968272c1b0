export {
  AskHumanArgs,
  internalToolArgs,
  internalToolDefs,
  isInternalTool,
  MemoryDeleteArgs,
  MemoryGetArgs,
  MemoryListArgs,
  MemorySetArgs,
  SleepArgs,
  SubagentAwaitArgs,
  SubagentKillArgs,
  SubagentListArgs,
  SubagentRunArgs,
  SubagentSendArgs,
  SubagentStatusArgs,
} from './internal-catalog.js';
export {
  toolError,
  type CallMeta,
  type Tool,
  type ToolCallContext,
  type ToolHost,
  type ToolKind,
  type ToolOutput,
  type ToolSource,
} from './tool.js';
export { ToolSet } from './tool-set.js';
export {
  inLane,
  isInside,
  meetPathScopes,
  normalizePath,
  pathScopeLeq,
  permitsPath,
  resolveInside,
  type PathContext,
  type PathResolution,
} from './path-scope.js';
