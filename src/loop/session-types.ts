import type { ModelClient } from '../intel/model.js';
import type {
  ChildEvent,
  Finish,
  Limits,
  Outcome,
  TranscriptEntry,
  TranscriptMessage,
  Usage,
} from '../protocol/index.js';
import type { ToolHost } from '../tools/index.js';
import type { OutputCapture } from './output-capture.js';

/** What a budget admission answered: go, possibly on a cheaper model. */
export interface Admission {
  model?: string;
}

/** How the session reports and asks: all optional, all called from the turn's own flow. */
export interface SessionHooks {
  /** Progress, for the supervisor's watchdog and the live display. */
  onEvent?(event: ChildEvent): void;
  /** Each change to the transcript, as it happens (a tool result as soon as its call ends). */
  onTranscript?(entry: TranscriptEntry): void;
  /**
   * Usage of each model call, reported right after the call, with the model that answered and
   * the index of its endpoint (so the supervisor can price it).
   */
  onUsage?(
    usage: Usage,
    answered: { model: string; endpoint: number; modelAsked?: string | undefined },
  ): void;
  /** Budget admission before each model call; throws `ArborError('budget_refused')` to refuse. */
  admit?(estimate: number, options: { signal: AbortSignal }): Promise<Admission>;
  /** Resolves when the session may go on (not paused); called at every step boundary. */
  waitWhileHeld?(signal: AbortSignal): Promise<void>;
}

export interface SessionOptions {
  model: ModelClient;
  tools: ToolHost;
  system: string;
  /** The transcript the session starts from (seed messages). */
  transcript?: readonly TranscriptMessage[];
  limits: Limits;
  hooks?: SessionHooks;
  /** Log message and tool content in events, not only sizes. */
  logContent?: boolean;
  /** Offer the `finish` tool (default true; off when an allow-list excludes it). */
  offerFinish?: boolean;
  /**
   * Structured output: the run completes only when the model submits a valid value to the capture
   * tool (which the tool host must list); a model that keeps answering in prose ends `failed`.
   */
  capture?: OutputCapture;
  /**
   * The transcript was recorded before a crash: the first turn finishes the step that was in
   * flight (runs the tool calls that have no result) before calling the model again.
   */
  resumed?: boolean;
  /** Who this session is, stamped on calls that leave the process (MCP `_meta`). */
  identity?: { runId: string; nodeId: string; traceparent?: string };
  now?: () => number;
}

/** What one turn produced. */
export interface TurnReport {
  outcome: Outcome;
  /** Messages the turn appended to the transcript, in order. */
  messages: TranscriptMessage[];
  /** The turn's last answer text, if any. */
  text: string | undefined;
  finish: Finish | undefined;
  usage: Usage;
  /** Model calls made. */
  rounds: number;
  toolCalls: number;
}
