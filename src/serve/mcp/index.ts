export { ArborMcp } from './arbor-mcp.js';
export { resolveMcpCaps } from './mcp-caps.js';
export { openMcpArbor } from './open-mcp-arbor.js';
