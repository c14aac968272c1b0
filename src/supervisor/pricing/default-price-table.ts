import type * as GenaiPrices from '@pydantic/genai-prices';
import type { PriceOptions } from '@pydantic/genai-prices';
import type { Usage } from '../../protocol/index.js';

/**
 * The default price table: the data `@pydantic/genai-prices` ships with (per provider and model,
 * with cache-read, cache-write, one-hour-write and tiered prices). It is the table of the
 * installed version only: `updatePrices` (which fetches a newer table at run time) is never
 * called. Loaded by the supervisor alone: a child reports tokens, never prices them.
 */

/**
 * Where the table comes from. The package carries no date for its data, so the date is the day
 * this version was published to npm, recorded here when the dependency was chosen (a test checks
 * that `version` is the installed one, so an upgrade must update both).
 */
export const PRICE_TABLE_SOURCE = {
  package: '@pydantic/genai-prices',
  version: '0.1.8',
  published: '2026-09-23',
} as const;

type PriceModule = typeof GenaiPrices;

let loading: Promise<PriceModule> | undefined;
let table: PriceModule | undefined;

/**
 * Loads the table (once per process; about 80 ms of CPU on a 2-core machine). It is loaded on
 * demand, not at import, so an `arbor` command that prices nothing never pays for it:
 * `openRuntime` loads it while the store, tracing and the fleet open, and `Supervisor.runRoot`
 * awaits it before a run's first node starts when nothing loaded it before.
 */
export async function loadPriceTable(): Promise<void> {
  loading ??= import('@pydantic/genai-prices').then((module) => (table = module));
  await loading;
}

/** Whether the table has loaded (then pricing needs no wait). */
export function isPriceTableLoaded(): boolean {
  return table !== undefined;
}

/** The loaded table; a caller that prices before `loadPriceTable` settled is a bug in arbor. */
function loaded(): PriceModule {
  if (table === undefined) throw new Error('the default price table is used before it is loaded');
  return table;
}

/** Where a call was answered, to choose the provider whose prices apply. */
interface PriceHint {
  /** The endpoint's URL: a provider's own API (`api.openai.com`, …) is recognised by it. */
  url?: string;
  /** The endpoint's dialect: an unrecognised URL (a proxy, a local server) speaking a provider's dialect. */
  dialect?: string;
}

/** The table's name for the provider whose dialect an endpoint speaks. */
function providerOfDialect(dialect: string | undefined): string | undefined {
  if (dialect === undefined) return undefined;
  return dialect === 'anthropic'
    ? 'anthropic'
    : dialect.startsWith('openai')
      ? 'openai'
      : undefined;
}

/**
 * The cost in USD of one call's usage from the default table, or undefined when the table does not
 * know the model. The provider is the one the URL names; else the one whose dialect the endpoint
 * speaks, when it has the model; else the first provider that knows the model's name.
 */
export function defaultCost(usage: Usage, model: string, hint: PriceHint = {}): number | undefined {
  const tokens = tableUsage(usage);
  const providerId = providerOfDialect(hint.dialect);
  const attempts: PriceOptions[] = [
    ...(hint.url === undefined ? [] : [{ providerApiUrl: hint.url }]),
    ...(providerId === undefined ? [] : [{ providerId }]),
    {},
  ];
  const { calcPrice } = loaded();
  for (const options of attempts) {
    const price = calcPrice(tokens, model, options);
    if (price !== null) return price.total_price;
  }
  return undefined;
}

/**
 * Usage in the table's keys. `input_tokens` is the total there too; the one-hour writes are part
 * of the writes. Reasoning tokens are left out: they are output, and priced as output. Cache
 * counts larger than what holds them (a hostile or confused report) are cut to fit, since the
 * table refuses them and a report must not stop the supervisor.
 */
function tableUsage(usage: Usage): Record<string, number> {
  const read = Math.min(usage.cache_read_tokens ?? 0, usage.input_tokens);
  const written = Math.min(usage.cache_write_tokens ?? 0, usage.input_tokens - read);
  const written1h = Math.min(usage.cache_write_1h_tokens ?? 0, written);
  return {
    input_tokens: usage.input_tokens,
    output_tokens: usage.output_tokens,
    ...(read === 0 ? {} : { cache_read_tokens: read }),
    ...(written === 0 ? {} : { cache_write_tokens: written }),
    ...(written1h === 0 ? {} : { cache_write_1h_tokens: written1h }),
  };
}

/** What `arbor doctor` says of the default table: its source, its date and its size. */
interface PriceTableInfo {
  package: string;
  version: string;
  published: string;
  providers: number;
  models: number;
}

/** The default table's source and size (the data the installed package ships with). */
export async function describePriceTable(): Promise<PriceTableInfo> {
  await loadPriceTable();
  const providers = (await loaded().waitForUpdate()) ?? [];
  return {
    ...PRICE_TABLE_SOURCE,
    providers: providers.length,
    models: providers.reduce((sum, provider) => sum + provider.models.length, 0),
  };
}

/** Whether the default table knows a model, under the provider an endpoint points at. */
export function hasDefaultPrice(model: string, hint: PriceHint = {}): boolean {
  return defaultCost({ input_tokens: 1, output_tokens: 1 }, model, hint) !== undefined;
}
