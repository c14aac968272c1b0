import type { ModelPrice, Usage } from '../protocol/index.js';

const PER_MILLION = 1_000_000;

/**
 * Adds `cost_usd` to a call's usage from the price table (USD per million tokens). The first of
 * `models` with a price is used: the name the server reported, then the name that was asked for
 * (servers often answer with a dated snapshot of the requested alias). No price, no cost field.
 */
export function priceUsage(
  usage: Omit<Usage, 'cost_usd'>,
  prices: Readonly<Record<string, ModelPrice>>,
  models: readonly string[],
): Usage {
  const model = models.find((name) => Object.hasOwn(prices, name));
  const price = model === undefined ? undefined : prices[model];
  if (price === undefined) return { ...usage };
  const cost =
    (usage.input_tokens * price.input_per_mtok + usage.output_tokens * price.output_per_mtok) /
    PER_MILLION;
  return { ...usage, cost_usd: cost };
}
