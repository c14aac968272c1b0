import type { Dialect } from '../protocol/index.js';
import { buildAnthropicRequest } from './anthropic-request.js';
import { ANTHROPIC_RESPONSE_NAME, decodeAnthropicResponse } from './anthropic-response.js';
import { AnthropicStreamDecoder } from './anthropic-stream.js';
import { ANTHROPIC_VERSION } from './anthropic-wire.js';
import type { DialectAdapter } from './dialect.js';
import { buildOpenAiRequest } from './openai-request.js';
import { OPENAI_RESPONSE_NAME, decodeOpenAiResponse } from './openai-response.js';
import { OpenAiStreamDecoder } from './openai-stream.js';
import { buildResponsesRequest } from './responses-request.js';
import { RESPONSES_RESPONSE_NAME, decodeResponsesResponse } from './responses-response.js';
import { ResponsesStreamDecoder } from './responses-stream.js';

const openai: DialectAdapter = {
  path: '/chat/completions',
  responseName: OPENAI_RESPONSE_NAME,
  authHeaders: (apiKey) => (apiKey === undefined ? {} : { authorization: `Bearer ${apiKey}` }),
  buildBody: buildOpenAiRequest,
  decodeResponse: decodeOpenAiResponse,
  createStreamDecoder: (names) => new OpenAiStreamDecoder(names),
};

const anthropic: DialectAdapter = {
  path: '/messages',
  responseName: ANTHROPIC_RESPONSE_NAME,
  authHeaders: (apiKey) => ({
    'anthropic-version': ANTHROPIC_VERSION,
    ...(apiKey === undefined ? {} : { 'x-api-key': apiKey }),
  }),
  buildBody: buildAnthropicRequest,
  decodeResponse: decodeAnthropicResponse,
  createStreamDecoder: (names) => new AnthropicStreamDecoder(names),
};

/** OpenAI's Responses API, used statelessly (see `buildResponsesRequest`). */
const openaiResponses: DialectAdapter = {
  path: '/responses',
  responseName: RESPONSES_RESPONSE_NAME,
  authHeaders: (apiKey) => (apiKey === undefined ? {} : { authorization: `Bearer ${apiKey}` }),
  buildBody: buildResponsesRequest,
  decodeResponse: decodeResponsesResponse,
  createStreamDecoder: (names) => new ResponsesStreamDecoder(names),
};

/** The adapter of each dialect arbor speaks. */
export const DIALECTS: Readonly<Record<Dialect, DialectAdapter>> = {
  openai,
  anthropic,
  'openai-responses': openaiResponses,
};
