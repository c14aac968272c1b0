import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Usage } from '../../src/protocol/index.js';
import {
  defaultCost,
  describePriceTable,
  loadPriceTable,
  overrideCost,
  PRICE_TABLE_SOURCE,
  priceUsage,
} from '../../src/supervisor/pricing/index.js';
import { intelConfig } from '../helpers/intel.js';

beforeAll(loadPriceTable);

const M = 1_000_000;
const OPENAI = 'https://api.openai.com/v1';
const LOCAL = 'http://127.0.0.1:9/v1';

/** An intelligence config whose one endpoint serves `model`. */
function intel(model: string, extra: Parameters<typeof intelConfig>[1] = {}) {
  return intelConfig([{ url: LOCAL, dialect: 'openai' }], { model, ...extra });
}

describe('pricing in the supervisor', () => {
  it('takes the user’s price over the default table', () => {
    const usage = { input_tokens: M, output_tokens: M };
    const priced = priceUsage(
      usage,
      { model: 'gpt-4o-mini', endpoint: 0 },
      intel('gpt-4o-mini', {
        prices: { 'gpt-4o-mini': { input_per_mtok: 1, output_per_mtok: 2 } },
      }),
    );
    expect(priced.cost_usd).toBe(3);
    // Without it, the default table's: $0.15 in, $0.60 out per million.
    expect(
      priceUsage(usage, { model: 'gpt-4o-mini', endpoint: 0 }, intel('gpt-4o-mini')),
    ).toMatchObject({ cost_usd: expect.closeTo(0.75, 9) as number });
  });

  it('prices cache reads, cache writes and one-hour writes at their own rates in a user’s price', () => {
    const usage: Usage = {
      input_tokens: 1_000,
      cache_read_tokens: 400,
      cache_write_tokens: 300,
      cache_write_1h_tokens: 100,
      output_tokens: 10,
    };
    const price = {
      input_per_mtok: 1 * M,
      output_per_mtok: 100 * M,
      cache_read_per_mtok: 0.1 * M,
      cache_write_per_mtok: 2 * M,
      cache_write_1h_per_mtok: 5 * M,
    };
    // 300 uncached × 1 + 400 read × 0.1 + 200 written for 5 minutes × 2 + 100 for an hour × 5 + 10 × 100.
    expect(overrideCost(usage, price)).toBeCloseTo(300 + 40 + 400 + 500 + 1_000, 9);
  });

  it('prices cache tokens at the input rate, and hour-long writes at the write rate, when a user’s price names no cache rate', () => {
    const usage: Usage = {
      input_tokens: 1_000,
      cache_read_tokens: 400,
      cache_write_tokens: 300,
      cache_write_1h_tokens: 100,
      output_tokens: 0,
    };
    expect(overrideCost(usage, { input_per_mtok: M, output_per_mtok: 0 })).toBeCloseTo(1_000, 9);
    expect(
      overrideCost(usage, { input_per_mtok: M, output_per_mtok: 0, cache_write_per_mtok: 2 * M }),
    ).toBeCloseTo(300 + 400 + 300 * 2, 9);
  });

  it('prices cache reads, writes and one-hour writes at the default table’s rates', () => {
    // claude-sonnet-4-5: $3 input, $0.30 cache read, $3.75 write (5 min), $6 write (1 h), $15 output.
    const cost = defaultCost(
      {
        input_tokens: 100_000,
        cache_read_tokens: 20_000,
        cache_write_tokens: 30_000,
        cache_write_1h_tokens: 10_000,
        output_tokens: 1_000,
      },
      'claude-sonnet-4-5',
      { dialect: 'anthropic' },
    );
    expect(cost).toBeCloseTo(
      (50_000 * 3 + 20_000 * 0.3 + 20_000 * 3.75 + 10_000 * 6 + 1_000 * 15) / M,
      9,
    );
    // gpt-4o-mini: a cache read at half the input rate.
    expect(
      defaultCost({ input_tokens: M, cache_read_tokens: M / 2, output_tokens: 0 }, 'gpt-4o-mini'),
    ).toBeCloseTo(((M / 2) * 0.15) / M + ((M / 2) * 0.075) / M, 9);
  });

  it('prices reasoning tokens as output tokens', () => {
    const plain = { input_tokens: 1_000, output_tokens: 2_000 };
    const reasoning = { ...plain, reasoning_tokens: 1_500 };
    const price = { input_per_mtok: 1, output_per_mtok: 8 };
    expect(overrideCost(reasoning, price)).toBe(overrideCost(plain, price));
    expect(defaultCost(reasoning, 'gpt-4o-mini')).toBe(defaultCost(plain, 'gpt-4o-mini'));
    expect(defaultCost(reasoning, 'gpt-4o-mini')).toBeCloseTo((1_000 * 0.15 + 2_000 * 0.6) / M, 12);
  });

  it('applies a tier price to the whole call when its input passes the tier (long context)', () => {
    // claude-sonnet-4-5 above 200k input tokens: $6 input, $22.50 output.
    expect(
      defaultCost({ input_tokens: 300_000, output_tokens: 1_000 }, 'claude-sonnet-4-5'),
    ).toBeCloseTo((300_000 * 6 + 1_000 * 22.5) / M, 9);
    expect(
      defaultCost({ input_tokens: 150_000, output_tokens: 1_000 }, 'claude-sonnet-4-5'),
    ).toBeCloseTo((150_000 * 3 + 1_000 * 15) / M, 9);
  });

  it('leaves a model no table knows unpriced', () => {
    const usage = { input_tokens: 10, output_tokens: 10 };
    expect(defaultCost(usage, 'my-local-model')).toBeUndefined();
    expect(
      priceUsage(usage, { model: 'my-local-model', endpoint: 0 }, intel('my-local-model')),
    ).toEqual(usage);
  });

  it('picks the provider by the endpoint: its URL, else its dialect, else the model’s name', () => {
    const usage = { input_tokens: M, output_tokens: 0 };
    expect(defaultCost(usage, 'gpt-4o-mini', { url: OPENAI })).toBeCloseTo(0.15, 9);
    // A local proxy speaking OpenAI's dialect, and one serving a Claude model through it.
    expect(defaultCost(usage, 'gpt-4o-mini', { url: LOCAL, dialect: 'openai' })).toBeCloseTo(
      0.15,
      9,
    );
    expect(
      defaultCost({ input_tokens: 100_000, output_tokens: 0 }, 'claude-sonnet-4-5', {
        url: LOCAL,
        dialect: 'openai',
      }),
    ).toBeCloseTo(0.3, 9);
  });

  it('keeps a cost the sender gives (an A2A peer’s own price)', () => {
    const usage = { input_tokens: M, output_tokens: 0, cost_usd: 42 };
    expect(priceUsage(usage, { model: 'gpt-4o-mini', endpoint: 0 }, intel('gpt-4o-mini'))).toEqual(
      usage,
    );
  });

  it('falls back on the model asked of the endpoint when the server names a snapshot the user’s prices lack', () => {
    const config = intel('house-model', {
      prices: { 'house-model': { input_per_mtok: 2.5, output_per_mtok: 10 } },
    });
    const usage = { input_tokens: M, output_tokens: 0 };
    expect(
      priceUsage(usage, { model: 'house-model-2030-01-01', endpoint: 0 }, config).cost_usd,
    ).toBe(2.5);
    // Usage of no known call (an A2A peer's, an old child's) is not priced as the config's model.
    expect(priceUsage(usage, {}, config).cost_usd).toBeUndefined();
  });

  it('prices a budget degrade at the cheaper model it named, not the model it replaced', () => {
    // The config's model is gpt-4o, priced by the user; the degraded call named gpt-4o-mini and
    // was answered by its dated snapshot, which neither table knows by that name.
    const config = intel('gpt-4o', {
      prices: { 'gpt-4o': { input_per_mtok: 2.5, output_per_mtok: 10 } },
    });
    const usage = { input_tokens: M, output_tokens: 0 };
    const answered = { model: 'gpt-4o-mini-2030-01-01', endpoint: 0, modelAsked: 'gpt-4o-mini' };
    expect(priceUsage(usage, answered, config).cost_usd).toBeCloseTo(0.15, 9);
    // Without the model asked (an older child), the endpoint's model is the fallback, as before.
    expect(
      priceUsage(usage, { model: 'gpt-4o-mini-2030-01-01', endpoint: 0 }, config).cost_usd,
    ).toBe(2.5);
  });

  it('cuts cache counts that exceed the input instead of refusing the report', () => {
    const cost = defaultCost(
      { input_tokens: 100, cache_read_tokens: 500, cache_write_tokens: 50, output_tokens: 0 },
      'gpt-4o-mini',
    );
    expect(cost).toBeCloseTo((100 * 0.075) / M, 12);
  });

  it('names the installed table, its date and its size', async () => {
    const installed = JSON.parse(
      readFileSync(
        new URL('../../node_modules/@pydantic/genai-prices/package.json', import.meta.url),
        'utf8',
      ),
    ) as { version: string };
    // Upgrading the package means recording its publication date anew.
    expect(PRICE_TABLE_SOURCE.version).toBe(installed.version);
    const info = await describePriceTable();
    expect(info).toMatchObject({ package: '@pydantic/genai-prices', published: '2026-09-23' });
    expect(info.providers).toBeGreaterThan(10);
    expect(info.models).toBeGreaterThan(500);
  });
});
