export { isYes, serveInternal, type InternalToolContext } from './serve-internal.js';
export { type SubagentApi } from './subagent-tools.js';
export { refuse, type ToolAnswer } from './tool-answer.js';
