export { memoryTools } from './memory-tools.js';
export { isYes, serveInternal, type InternalToolContext } from './serve-internal.js';
export { report, subagentTools, type SubagentApi } from './subagent-tools.js';
export { fail, ok, refuse, type ToolAnswer } from './tool-answer.js';
