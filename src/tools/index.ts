export { INTERNAL_TOOLS, SLEEP_TOOL, isInternalTool } from './internal-catalog.js';
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
