export { parseRetryAfter } from './retry-after.js';
export {
  AnthropicRequestSchema,
  type AnthropicErrorBody,
  type AnthropicResponse,
} from './anthropic-wire.js';
export { ALL_DOWN_CURVE, RETRY_CURVE, backoffDelay } from './backoff.js';
export { Breaker } from './breaker.js';
export { type Clock } from './clock.js';
export { resolveCredentials } from './credentials.js';
export { createModelClient, type IntelClient } from './intel-client.js';
export type {
  IntelHealthEvent,
  ModelDelta,
  ModelRequest,
  ModelResponse,
  RateLimitReport,
} from './model.js';
export { parseGoDuration, parseRateLimitHeaders } from './rate-limit-headers.js';
export { sendPost, type HeaderReader } from './http-transport.js';
export {
  OpenAiRequestSchema,
  type OpenAiChunk,
  type OpenAiErrorBody,
  type OpenAiResponse,
  type OpenAiUsage,
} from './openai-wire.js';
export {
  ResponsesRequestSchema,
  type ResponsesResponse,
  type ResponsesStreamEvent,
} from './responses-wire.js';
export { toWireToolName } from './wire-names.js';
export { DIALECTS } from './dialects.js';
