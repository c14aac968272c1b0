import type { ModelPrice, Usage } from '../../protocol/index.js';

const PER_MILLION = 1_000_000;

/**
 * The cost in USD of one call's usage at a price of the user's (`[intelligence.prices]`). Input
 * is priced by kind: uncached input at the input rate, cache reads and writes at their own rates
 * (each the input rate when not given), one-hour writes at theirs (the five-minute write rate when
 * not given). Reasoning tokens are part of the output and priced as output.
 */
export function overrideCost(usage: Usage, price: ModelPrice): number {
  const read = usage.cache_read_tokens ?? 0;
  const written = usage.cache_write_tokens ?? 0;
  const written1h = Math.min(usage.cache_write_1h_tokens ?? 0, written);
  // A provider that reports more cache tokens than input tokens is not billed below zero.
  const uncached = Math.max(0, usage.input_tokens - read - written);
  const readRate = price.cache_read_per_mtok ?? price.input_per_mtok;
  const writeRate = price.cache_write_per_mtok ?? price.input_per_mtok;
  const write1hRate = price.cache_write_1h_per_mtok ?? writeRate;
  return (
    (uncached * price.input_per_mtok +
      read * readRate +
      (written - written1h) * writeRate +
      written1h * write1hRate +
      usage.output_tokens * price.output_per_mtok) /
    PER_MILLION
  );
}
