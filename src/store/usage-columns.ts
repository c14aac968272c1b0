import type { Usage } from '../protocol/index.js';

/**
 * The split counts of a usage, which are also their column names in `nodes` (with `subtree_` in
 * front for the subtree's). NULL is "never reported", which is not the same as zero: a view shows
 * no cache figure for a provider that reports none.
 */
export const SPLIT_COLUMNS = [
  'cache_read_tokens',
  'cache_write_tokens',
  'cache_write_1h_tokens',
  'reasoning_tokens',
] as const;

type SplitColumn = (typeof SPLIT_COLUMNS)[number];

/** The split columns of a `nodes` row: the node's own and its subtree's. */
export type SplitRow = Record<`${'' | 'subtree_'}${SplitColumn}`, number | null>;

/** The split counts as named parameters (`@cache_read_tokens`…), NULL where not reported. */
export function splitParams(usage: Usage): Record<SplitColumn, number | null> {
  return {
    cache_read_tokens: usage.cache_read_tokens ?? null,
    cache_write_tokens: usage.cache_write_tokens ?? null,
    cache_write_1h_tokens: usage.cache_write_1h_tokens ?? null,
    reasoning_tokens: usage.reasoning_tokens ?? null,
  };
}

/** `SET` terms that add a call's splits to a node's: a NULL addend leaves the column as it is. */
export const ADD_SPLITS_SQL = SPLIT_COLUMNS.map(
  (column) =>
    `${column} = CASE WHEN @${column} IS NULL THEN ${column} ELSE COALESCE(${column}, 0) + @${column} END`,
).join(', ');

/** The splits read back from a row's columns (`prefix` `subtree_` for the subtree's). */
export function splitsFromRow(
  row: SplitRow,
  prefix: '' | 'subtree_' = '',
): Partial<Pick<Usage, SplitColumn>> {
  const splits: Partial<Pick<Usage, SplitColumn>> = {};
  for (const column of SPLIT_COLUMNS) {
    const value = row[`${prefix}${column}`];
    if (typeof value === 'number') splits[column] = value;
  }
  return splits;
}
