import type { IntelConfig, ModelPrice } from '../protocol/index.js';
import type { Clock } from './clock.js';
import { priceUsage } from './cost.js';
import type { DecodedResponse } from './dialect.js';
import type { WireCall } from './model-attempts.js';
import type { ModelRequest, ModelResponse } from './model.js';
import type { PoolEndpoint } from './pool-endpoint.js';
import type { ToolNames } from './wire-names.js';

/** A call written for one endpoint, and what is needed to turn its answer into a response. */
export interface PreparedCall {
  wire: WireCall;
  /** The model asked for: the request's, else the endpoint's, else the config's. */
  model: string;
  prices: Readonly<Record<string, ModelPrice>>;
}

/** About four characters a token: the usual rule of thumb, used only when a server reports none. */
const CHARS_PER_TOKEN = 4;

export function prepareCall(
  request: ModelRequest,
  endpoint: PoolEndpoint,
  config: IntelConfig,
  names: ToolNames,
  stream: boolean,
  clock: Clock,
): PreparedCall {
  const model = request.model ?? endpoint.model ?? config.model;
  const sampling = { ...config.sampling, ...endpoint.settings.sampling, ...request.sampling };
  const body = endpoint.adapter.buildBody({
    request,
    model,
    sampling,
    stream,
    names,
    endpoint: endpoint.settings,
  });
  return {
    wire: {
      body: JSON.stringify(body),
      names,
      headers: request.traceparent === undefined ? {} : { traceparent: request.traceparent },
      now: () => clock.now(),
    },
    model,
    prices: config.prices,
  };
}

function estimateUsage(answer: DecodedResponse, prepared: PreparedCall) {
  const outputChars =
    answer.text.length +
    answer.toolCalls.reduce(
      (sum, call) => sum + call.name.length + JSON.stringify(call.args).length,
      0,
    );
  return {
    input_tokens: Math.ceil(prepared.wire.body.length / CHARS_PER_TOKEN),
    output_tokens: Math.ceil(outputChars / CHARS_PER_TOKEN),
  };
}

/** The response the loop sees: the answer with its cost, its model and the endpoint that gave it. */
export function toModelResponse(
  answer: DecodedResponse,
  endpoint: PoolEndpoint,
  prepared: PreparedCall,
): ModelResponse {
  const models = [answer.model, prepared.model].filter((m): m is string => m !== undefined);
  const usage = priceUsage(
    answer.usage ?? estimateUsage(answer, prepared),
    prepared.prices,
    models,
  );
  return {
    text: answer.text,
    toolCalls: answer.toolCalls,
    finishReason: answer.finishReason,
    usage,
    ...(answer.usage === undefined ? { usageEstimated: true } : {}),
    model: answer.model ?? prepared.model,
    endpointIndex: endpoint.index,
    // Pinned to the model asked for, which the next call compares with: a server that answers
    // with a dated snapshot of an alias must not make the next call drop its thinking.
    ...(answer.reasoning === undefined
      ? {}
      : { reasoning: { ...answer.reasoning, model: prepared.model } }),
  };
}
