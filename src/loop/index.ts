export {
  AgentSession,
  type Admission,
  type SessionHooks,
  type SessionOptions,
  type TurnReport,
} from './agent-session.js';
export { FINISH_TOOL, FINISH_TOOL_NAME, readFinish } from './finish-tool.js';
export { checkGuards, type Stop, type TurnBounds, type TurnProgress } from './guards.js';
export { LoopDetector } from './loop-detector.js';
export { OutputCapture, SUBMIT_REMINDERS, SUBMIT_TOOL_NAME } from './output-capture.js';
export { seedTranscript } from './seed.js';
export { stableKey } from './stable-key.js';
export { StallDetector } from './stall-detector.js';
export { buildSystemPrompt, type SystemPromptParts } from './system-prompt.js';
export { addUsage, estimateTokens, ZERO_USAGE } from './usage.js';
