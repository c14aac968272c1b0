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
