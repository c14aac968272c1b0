import type { ModelResponse } from '../intel/index.js';
import type { Usage } from '../protocol/index.js';

/** The cache and reasoning counts of a call's usage, as a `model.call` event carries them. */
export function usageSplits(usage: Usage): {
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  reasoningTokens?: number;
} {
  return {
    ...(usage.cache_read_tokens === undefined ? {} : { cacheReadTokens: usage.cache_read_tokens }),
    ...(usage.cache_write_tokens === undefined
      ? {}
      : { cacheWriteTokens: usage.cache_write_tokens }),
    ...(usage.reasoning_tokens === undefined ? {} : { reasoningTokens: usage.reasoning_tokens }),
  };
}

/** Who answered a call, as its usage report names it: the model, the endpoint, the model asked. */
export function answeredBy(response: ModelResponse): {
  model: string;
  endpoint: number;
  modelAsked: string | undefined;
} {
  return {
    model: response.model,
    endpoint: response.endpointIndex,
    modelAsked: response.modelAsked,
  };
}
