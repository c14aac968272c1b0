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
export {
  DEFAULT_CALL_TIMEOUT_MS,
  MCP_META_KEYS,
  McpConnection,
  McpToolSource,
  connectMcpServer,
  connectMcpServers,
  mcpToolNames,
  toMcpMeta,
  type CloseOutcome,
  type ConnectMcpServerOptions,
  type ConnectMcpServersOptions,
  type McpFailureKind,
  type McpCallOptions,
  type McpCallResult,
  type McpListedTool,
  type McpServerSet,
  type McpToolSourceOptions,
  type SkippedMcpServer,
} from './mcp/index.js';
