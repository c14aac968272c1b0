import { z } from 'zod';
import type { Usage } from './outcome.js';

/**
 * Usage as an A2A task carries it (`metadata["arbor/usage"]`), in A2A's JSON casing: what an arbor
 * peer reports and what an arbor node relaying to a peer reads. Snake_case keys are read too (the
 * peers before 0.2 wrote them). A count that is not a non-negative integer reads as absent.
 */
const Count = z.number().int().nonnegative().optional().catch(undefined);

const UsageMetadataSchema = z.object({
  inputTokens: Count,
  outputTokens: Count,
  cacheReadTokens: Count,
  cacheWriteTokens: Count,
  cacheWrite1hTokens: Count,
  reasoningTokens: Count,
  costUsd: z.number().nonnegative().optional().catch(undefined),
  input_tokens: Count,
  output_tokens: Count,
  cost_usd: z.number().nonnegative().optional().catch(undefined),
});

/** The split counts of a usage and their names in task metadata. */
const SPLITS = [
  ['cache_read_tokens', 'cacheReadTokens'],
  ['cache_write_tokens', 'cacheWriteTokens'],
  ['cache_write_1h_tokens', 'cacheWrite1hTokens'],
  ['reasoning_tokens', 'reasoningTokens'],
] as const;

/** A usage in camelCase, as task metadata and the API's `usage` event carry it. */
export interface CamelUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  cacheWrite1hTokens?: number;
  reasoningTokens?: number;
  costUsd?: number;
}

/** A usage as task metadata: the totals, the splits where reported, the cost where known. */
export function usageToMetadata(usage: Usage): CamelUsage {
  const metadata: CamelUsage = {
    inputTokens: usage.input_tokens,
    outputTokens: usage.output_tokens,
  };
  for (const [key, name] of SPLITS) {
    const value = usage[key];
    if (value !== undefined) metadata[name] = value;
  }
  if (usage.cost_usd !== undefined) metadata.costUsd = usage.cost_usd;
  return metadata;
}

/** The usage a peer's task metadata reports, or undefined when it reports no tokens. */
export function usageFromMetadata(value: unknown): Usage | undefined {
  const parsed = UsageMetadataSchema.safeParse(value);
  if (!parsed.success) return undefined;
  const metadata = parsed.data;
  const input = metadata.inputTokens ?? metadata.input_tokens ?? 0;
  const output = metadata.outputTokens ?? metadata.output_tokens ?? 0;
  if (input === 0 && output === 0) return undefined;
  const usage: Usage = { input_tokens: input, output_tokens: output };
  for (const [key, name] of SPLITS) {
    const count = metadata[name];
    if (count !== undefined) usage[key] = count;
  }
  const cost = metadata.costUsd ?? metadata.cost_usd;
  if (cost !== undefined) usage.cost_usd = cost;
  return usage;
}
