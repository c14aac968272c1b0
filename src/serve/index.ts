export { ArborMcp, openMcpArbor, resolveMcpCaps } from './mcp/index.js';
export { startServer, type RunningServer } from './serve.js';
