export { MCP_META_KEYS, toMcpMeta } from './call-meta.js';
export { toToolOutput } from './call-result.js';
export { connectMcpServer, type ConnectMcpServerOptions } from './connect-mcp-server.js';
export {
  connectMcpServers,
  type ConnectMcpServersOptions,
  type McpServerSet,
  type SkippedMcpServer,
} from './connect-mcp-servers.js';
export {
  McpConnection,
  type McpCallOptions,
  type McpCallResult,
  type McpListedTool,
} from './mcp-connection.js';
export type { McpFailureKind } from './mcp-failure.js';
export {
  DEFAULT_CALL_TIMEOUT_MS,
  McpToolSource,
  type McpToolSourceOptions,
} from './mcp-tool-source.js';
export type { CloseOutcome } from './server-channel.js';
export type { StopHow, StopOutcome } from './stop-process.js';
export { mcpToolNames } from './tool-names.js';
export {
  resolveReferences,
  type ReferenceSources,
  type ResolvedMap,
} from './resolve-references.js';
