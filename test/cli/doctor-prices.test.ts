import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runArbor } from '../helpers/run-arbor.js';

interface Check {
  name: string;
  status: string;
  detail: string;
}

/** `arbor doctor --json` with a config file of `toml`; its checks by name. */
async function doctor(toml: string): Promise<{ code: number | null; checks: Map<string, Check> }> {
  const dir = mkdtempSync(join(tmpdir(), 'arbor-doctor-'));
  const config = join(dir, 'arbor.toml');
  writeFileSync(config, toml);
  const result = await runArbor([
    'doctor',
    '--json',
    '--config',
    config,
    '--db',
    join(dir, 'a.db'),
  ]);
  const { checks } = JSON.parse(result.stdout) as { checks: Check[] };
  return { code: result.code, checks: new Map(checks.map((check) => [check.name, check])) };
}

const INTEL = (model: string) =>
  `[intelligence]\nmodel = "${model}"\nendpoints = ["http://127.0.0.1:9/v1"]\n`;

describe('arbor doctor on prices', () => {
  it('names the default table, its version, its date and how many models it knows', async () => {
    const { checks } = await doctor(INTEL('gpt-4o-mini'));
    const prices = checks.get('prices');
    expect(prices?.status).toBe('ok');
    expect(prices?.detail).toMatch(
      /^default table @pydantic\/genai-prices \d+\.\d+\.\d+ \(published \d{4}-\d{2}-\d{2}; its data carries no date of its own\), \d{3,} models of \d+ providers$/,
    );
    // A model the table knows gets no line of its own.
    expect([...checks.keys()].filter((name) => name.startsWith('price '))).toEqual([]);
  });

  it('says when a configured model has no price, and fails when a money ceiling depends on it', async () => {
    const unpriced = await doctor(INTEL('my-local-model'));
    expect(unpriced.checks.get('price my-local-model')).toMatchObject({
      status: 'absent',
      detail: expect.stringContaining('a money ceiling never trips on them') as string,
    });
    const ceiling = await doctor(`${INTEL('my-local-model')}[budget]\nusd = 2\n`);
    expect(ceiling.checks.get('price my-local-model')?.status).toBe('missing');
    expect(ceiling.code).toBe(1);
  });

  it('counts the user’s own price as a price', async () => {
    const { checks } = await doctor(
      `${INTEL('my-local-model')}[budget]\nusd = 2\n[intelligence.prices.my-local-model]\ninput_per_mtok = 1\noutput_per_mtok = 2\ncache_read_per_mtok = 0.1\n`,
    );
    expect(checks.has('price my-local-model')).toBe(false);
    expect(checks.get('prices')?.detail).toContain('1 of yours in [intelligence.prices] over it');
  });
});
