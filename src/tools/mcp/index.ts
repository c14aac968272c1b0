export { MCP_META_KEYS } from './call-meta.js';
export { connectMcpServer } from './connect-mcp-server.js';
export { connectMcpServers, type McpServerSet } from './connect-mcp-servers.js';
export { McpConnection, type McpCallResult } from './mcp-connection.js';
export { McpToolSource } from './mcp-tool-source.js';
export { mcpToolNames } from './tool-names.js';
export { resolveReferences } from './resolve-references.js';
