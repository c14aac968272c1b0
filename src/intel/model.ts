import type {
  Dialect,
  IntelActive,
  IntelConfig,
  ReasoningTrace,
  Sampling,
  ToolCall,
  ToolDef,
  TranscriptMessage,
  Usage,
} from '../protocol/index.js';
import type { RateLimits } from './rate-limit-headers.js';

/**
 * The model port: what the agent loop asks of an LLM, in arbor's dialect-neutral terms. The
 * dialects (OpenAI chat completions, Anthropic messages) translate to and from their wire shapes;
 * the endpoint pool adds failover, breakers and health on top.
 */

/** One model call. */
export interface ModelRequest {
  /** The system prompt; `system` and `note` messages in the transcript are folded in after it. */
  system?: string;
  messages: readonly TranscriptMessage[];
  /** Tools the model may call, by arbor name (dots allowed; the wire form replaces `.` with `_`). */
  tools?: readonly ToolDef[];
  /** Whether the model must, may or must not call a tool. Default `auto`. */
  toolChoice?: 'auto' | 'none' | 'required';
  /** Overrides the config's sampling options for this call. */
  sampling?: Sampling;
  /** Overrides the model for this call (a budget degrade to a cheaper model). */
  model?: string;
  /** W3C trace context sent as the `traceparent` header. */
  traceparent?: string;
}

/** Why the model stopped. */
export type FinishReason = 'stop' | 'tool_calls' | 'length' | 'content_filter' | 'other';

/**
 * A tool call as the model made it. When the model's arguments were not a JSON object, `args` is
 * `{}` and `argsError` says what was wrong, so the loop can answer the call with an error the
 * model can read instead of running the tool on arguments it never gave.
 */
export type ModelToolCall = ToolCall & { argsError?: string };

/** The model's answer to one call. */
export interface ModelResponse {
  /** The answer text; empty when the model only called tools. */
  text: string;
  /** Tool calls, with arbor tool names (the wire names mapped back) and parsed arguments. */
  toolCalls: ModelToolCall[];
  finishReason: FinishReason;
  /** Tokens of this call, and its cost when the model has a price. */
  usage: Usage;
  /**
   * True when the endpoint reported no usage and the token counts are estimated (about four
   * characters a token), so budgets still see the call.
   */
  usageEstimated?: boolean;
  /** The model that answered, as the server reported it. */
  model: string;
  /** Which endpoint of the list answered (0-based). */
  endpointIndex: number;
  /** The model the call named (the request's, else the endpoint's, else the config's). */
  modelAsked?: string;
  /** The sampling the call was sent with (the config's, under the endpoint's, under the request's). */
  sampling?: Sampling;
  /**
   * What a reasoning model thought, verbatim (thinking blocks, encrypted reasoning items): the
   * loop keeps it on the assistant message so the next call of the turn can send it back.
   */
  reasoning?: ReasoningTrace;
  /** Served from a recorded run (`arbor replay`): no endpoint was called, nothing was spent. */
  replayed?: boolean;
}

/**
 * A piece of a streamed answer. The last delta of a successful stream is always `done`. A `reset`
 * says the stream broke off mid-answer and the call is being made again: drop every delta since
 * the call began (or since the last `reset`); the retry streams the answer from its start.
 */
export type ModelDelta =
  | { type: 'text'; text: string }
  | { type: 'tool_call'; index: number; id?: string; name?: string; argsDelta: string }
  | { type: 'reset'; reason: string }
  | { type: 'done'; response: ModelResponse };

export interface CallOptions {
  signal?: AbortSignal;
}

/** Breaker state of one endpoint. */
export type BreakerState = 'closed' | 'open' | 'half_open';

/** Health record of one endpoint: what an operator sees, never a URL or a credential. */
export interface EndpointHealth {
  index: number;
  dialect: Dialect;
  transport: IntelActive['transport'];
  state: BreakerState;
  consecutiveFailures: number;
  totalCalls: number;
  totalFailures: number;
  /** Exponentially weighted moving average of successful call latency, in milliseconds. */
  ewmaLatencyMs: number | undefined;
  lastOkAt: number | undefined;
  lastErrorAt: number | undefined;
  /** Class of the last failure (`timeout`, `connection`, `status_503`, `auth`, …). */
  lastErrorKind: string | undefined;
  /** When the breaker last opened, while it is open or half-open. */
  openedAt?: number | undefined;
  /** The cooldown before the next probe while open (it doubles on each re-open), in milliseconds. */
  cooldownMs?: number;
  /** Names the endpoint's provider and model without its address (see `PoolEndpoint.scope`). */
  scope?: string;
  /** The provider's limits as its last response with rate-limit headers said, and when (`at`). */
  rateLimit?: { at: number; limits: RateLimits };
}

/** What one response said of its provider's limits: which endpoint, when, and the limits. */
export interface RateLimitReport {
  endpoint: number;
  scope: string;
  at: number;
  limits: RateLimits;
}

/**
 * Edge-triggered health change: emitted once when every endpoint becomes unusable and once on
 * recovery, however many calls are in flight. Carries an index and transport only.
 */
export interface IntelHealthEvent {
  allDown: boolean;
  active?: IntelActive;
}

/** What the agent loop holds: a model it can call, watch and re-point. */
export interface ModelClient {
  generate(request: ModelRequest, options?: CallOptions): Promise<ModelResponse>;
  stream(request: ModelRequest, options?: CallOptions): AsyncIterable<ModelDelta>;
  /** Replaces the endpoint list and model between calls, with fresh breakers. A bad config keeps the old one and throws. */
  swap(config: IntelConfig): void;
  /** The model calls go to unless a request overrides it. */
  readonly model: string;
  health(): EndpointHealth[];
  /** Subscribes to edge-triggered health changes; returns the unsubscribe function. */
  onHealth(listener: (event: IntelHealthEvent) => void): () => void;
}
