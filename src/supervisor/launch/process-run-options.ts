import type { AgentFrame, ControlFrame, ProtocolViolation } from '../../protocol/index.js';
import type { ChildCommand } from './child-entry.js';
import type { ChildHandle } from './child-handle.js';
import type { ToolAnswer } from '../internal/tool-answer.js';
import type { Timing } from '../timing.js';

type ToolRequest = Extract<AgentFrame, { type: 'tool_request' }>;
type BudgetRequest = Extract<AgentFrame, { type: 'budget_request' }>;

export interface ProcessRunHandlers {
  /** Every frame, after the run has done its own bookkeeping. */
  onFrame?(frame: AgentFrame): void;
  onViolation?(violation: ProtocolViolation): void;
  onStderr?(line: string): void;
  /** Serves a `tool_request`; the answer is sent back as `tool_result`. */
  onToolRequest(frame: ToolRequest): Promise<ToolAnswer>;
  /** Answers a `budget_request`. */
  onBudgetRequest(
    frame: BudgetRequest,
  ): Promise<Omit<Extract<ControlFrame, { type: 'budget_grant' }>, 'type' | 'id'>>;
  /** A teardown was started (why), before its rungs run. */
  onTeardown?(reason: string): void;
}

export interface ProcessRunOptions {
  /** Starts a child process with this command, unless `child` is given. */
  command?: ChildCommand;
  /** The running side, already started (an in-process child, or one from a pool of idle
   * processes); otherwise a child process is started from `command`. */
  child?: ChildHandle;
  /** Environment and directory of a child process started from `command`. */
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  timing: Timing;
  handlers: ProcessRunHandlers;
  now?: () => number;
}
