export { parseRetryAfter } from './retry-after.js';
export {
  ANTHROPIC_VERSION,
  AnthropicBlockSchema,
  AnthropicErrorBodySchema,
  AnthropicMessageSchema,
  AnthropicRequestSchema,
  AnthropicResponseSchema,
  AnthropicStreamEventSchema,
  AnthropicUsageSchema,
  type AnthropicBlock,
  type AnthropicErrorBody,
  type AnthropicMessage,
  type AnthropicRequest,
  type AnthropicResponse,
  type AnthropicStreamEvent,
  type AnthropicTextBlock,
  type AnthropicToolUseBlock,
  type AnthropicUsage,
} from './anthropic-wire.js';
export {
  ALL_DOWN_CURVE,
  RETRY_CURVE,
  backoffDelay,
  type BackoffCurve,
  type Random,
} from './backoff.js';
export { Breaker, type BreakerTicket } from './breaker.js';
export { sleep, systemClock, type Clock } from './clock.js';
export { priceUsage } from './cost.js';
export { resolveCredentials } from './credentials.js';
export { type ClientMode, type ModelClientOptions } from './client-options.js';
export { createModelClient, type IntelClient } from './intel-client.js';
export type { EndpointMiss } from './intel-errors.js';
export type {
  BreakerState,
  CallOptions,
  EndpointHealth,
  FinishReason,
  IntelHealthEvent,
  ModelClient,
  ModelDelta,
  ModelRequest,
  ModelResponse,
  ModelToolCall,
} from './model.js';
export {
  OpenAiChunkSchema,
  OpenAiErrorBodySchema,
  OpenAiMessageSchema,
  OpenAiRequestSchema,
  OpenAiResponseSchema,
  OpenAiToolCallSchema,
  OpenAiToolSchema,
  OpenAiUsageSchema,
  type OpenAiChunk,
  type OpenAiErrorBody,
  type OpenAiMessage,
  type OpenAiRequest,
  type OpenAiResponse,
} from './openai-wire.js';
export { ToolNames, toWireToolName } from './wire-names.js';
export { DIALECTS } from './dialects.js';
