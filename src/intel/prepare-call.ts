import type { IntelConfig, Sampling } from '../protocol/index.js';
import type { Clock } from './clock.js';
import type { DecodedResponse, DecodedUsage } from './dialect.js';
import type { WireCall } from './model-attempts.js';
import type { ModelRequest, ModelResponse } from './model.js';
import type { PoolEndpoint } from './pool-endpoint.js';
import type { ToolNames } from './wire-names.js';

/** A call written for one endpoint, and what is needed to turn its answer into a response. */
export interface PreparedCall {
  wire: WireCall;
  /** The model asked for: the request's, else the endpoint's, else the config's. */
  model: string;
  /** The sampling sent: the config's, under the endpoint's, under the request's. */
  sampling: Sampling;
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
    sampling,
  };
}

function estimateUsage(answer: DecodedResponse, prepared: PreparedCall): DecodedUsage {
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

/**
 * The response the loop sees: the answer with its usage, its model and the endpoint that gave it.
 * The usage carries no cost: the supervisor prices it (`src/supervisor/pricing/`), so the price
 * table never loads in a child.
 */
export function toModelResponse(
  answer: DecodedResponse,
  endpoint: PoolEndpoint,
  prepared: PreparedCall,
): ModelResponse {
  const usage = answer.usage ?? estimateUsage(answer, prepared);
  return {
    text: answer.text,
    toolCalls: answer.toolCalls,
    finishReason: answer.finishReason,
    usage,
    ...(answer.usage === undefined ? { usageEstimated: true } : {}),
    model: answer.model ?? prepared.model,
    endpointIndex: endpoint.index,
    modelAsked: prepared.model,
    sampling: prepared.sampling,
    // Pinned to the model asked for, which the next call compares with: a server that answers
    // with a dated snapshot of an alias must not make the next call drop its thinking.
    ...(answer.reasoning === undefined
      ? {}
      : { reasoning: { ...answer.reasoning, model: prepared.model } }),
  };
}
