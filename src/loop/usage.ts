import type { ToolDef, TranscriptMessage, Usage } from '../protocol/index.js';

export const ZERO_USAGE: Usage = { input_tokens: 0, output_tokens: 0 };

/** Sums two usages; the cost is summed when either side has one. */
export function addUsage(a: Usage, b: Usage): Usage {
  const cost =
    a.cost_usd === undefined && b.cost_usd === undefined
      ? undefined
      : (a.cost_usd ?? 0) + (b.cost_usd ?? 0);
  const usage: Usage = {
    input_tokens: a.input_tokens + b.input_tokens,
    output_tokens: a.output_tokens + b.output_tokens,
  };
  for (const key of SPLIT_KEYS) {
    if (a[key] !== undefined || b[key] !== undefined) usage[key] = (a[key] ?? 0) + (b[key] ?? 0);
  }
  if (cost !== undefined) usage.cost_usd = cost;
  return usage;
}

/** The counts split out of the input and output totals; kept only where a side reported one. */
const SPLIT_KEYS = [
  'cache_read_tokens',
  'cache_write_tokens',
  'cache_write_1h_tokens',
  'reasoning_tokens',
] as const;

/**
 * A rough token estimate of a model call's input, for budget admission: four characters per token
 * plus a little per message. It over-counts plain prose and under-counts dense JSON; admission
 * only needs the order of magnitude, and real usage settles the ledger afterwards.
 */
export function estimateTokens(
  system: string,
  messages: readonly TranscriptMessage[],
  tools: readonly ToolDef[],
): number {
  let chars = system.length;
  for (const message of messages) chars += JSON.stringify(message).length;
  for (const tool of tools) chars += toolChars(tool);
  return Math.ceil(chars / 4) + 4 * messages.length;
}

/**
 * A tool's name and description are measured as they are; its schema, usually shared by every
 * child offered the tool (see `inputSchema`), is measured once.
 */
const schemaSizes = new WeakMap<object, number>();

function toolChars(tool: ToolDef): number {
  let schema = schemaSizes.get(tool.input_schema);
  if (schema === undefined) {
    schema = JSON.stringify(tool.input_schema).length;
    schemaSizes.set(tool.input_schema, schema);
  }
  // The JSON around them: `{"name":"","description":"","input_schema":}`.
  return tool.name.length + tool.description.length + schema + 44;
}
