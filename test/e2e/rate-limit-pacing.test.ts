import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDb } from '../helpers/arbor-process.js';
import { fakeLlm } from '../helpers/fake-llm.js';
import { runArbor } from '../helpers/run-arbor.js';

const WORKERS = 4;

/**
 * A root that fans out to four process children at once, against a provider allowing three
 * requests per 1.5 s window: six calls in all, so at least one window must pass mid-run.
 */
function fanOut(dialect: 'openai' | 'anthropic') {
  return {
    rate_limit: { requests: 3, window_ms: 1500 },
    scripts: [
      ...Array.from({ length: WORKERS }, (_, i) => ({
        match: { contains: `Worker task ${i + 1}.` },
        steps: [{ text: `worker ${i + 1} done` }],
      })),
      {
        match: { contains: 'Coordinate', dialect },
        steps: [
          {
            tool_calls: Array.from({ length: WORKERS }, (_, i) => ({
              name: 'subagent.run',
              args: { instruction: `Worker task ${i + 1}.`, provider: 'process' },
            })),
          },
          { text: 'All done' },
        ],
      },
    ],
  };
}

interface EventLine {
  event: string;
  path?: string;
  endpoint?: number;
  limit?: string;
  waited_ms?: number;
}

async function run(dialect: 'openai' | 'anthropic', providerLimits: 'pace' | 'ignore') {
  const server = await fakeLlm(fanOut(dialect));
  const dir = await mkdtemp(join(tmpdir(), 'arbor-rate-'));
  const config = join(dir, 'arbor.toml');
  await writeFile(config, `[budget]\nprovider_limits = "${providerLimits}"\n`);
  const result = await runArbor(
    [
      'run',
      '--intel',
      server.url,
      '--dialect',
      dialect,
      '--model',
      'm',
      '--json',
      '--events',
      'ndjson',
      '--config',
      config,
      'Coordinate the workers.',
    ],
    { env: { ARBOR_DB: tempDb() } },
  );
  const events = result.stderr
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as EventLine);
  const report =
    result.stdout === '' ? undefined : (JSON.parse(result.stdout) as { result: unknown });
  return { ...result, server, events, report };
}

describe('pacing by the provider’s rate limits', () => {
  it.each(['openai', 'anthropic'] as const)(
    'a fan-out waits for the reset instead of meeting 429s (%s headers)',
    async (dialect) => {
      const { code, stderr, server, events, report } = await run(dialect, 'pace');
      expect(code, stderr).toBe(0);
      expect(report?.result).toBe('All done');
      const statuses = server.requests.map((r) => r.status);
      expect(statuses).toHaveLength(2 + WORKERS);
      expect(statuses.filter((s) => s === 429)).toEqual([]);
      // The calls past the third waited for the window to pass, on the workers that made them.
      const waits = events.filter((e) => e.event === 'intel.rate_wait');
      expect(waits.length).toBeGreaterThan(0);
      for (const wait of waits) {
        expect(wait).toMatchObject({ endpoint: 0, limit: 'requests' });
        expect(wait.waited_ms).toBeGreaterThan(0);
        expect(wait.path).toMatch(/^0(\.\d)?$/);
      }
    },
  );

  it('without pacing, the same fan-out meets the provider’s 429s', async () => {
    const { code, stderr, server, events } = await run('openai', 'ignore');
    // The 429s are retried after `retry-after`, so the run still ends well: only slower, and refused.
    expect(code, stderr).toBe(0);
    expect(server.requests.filter((r) => r.status === 429).length).toBeGreaterThan(0);
    expect(server.requests.find((r) => r.status === 429)?.fault).toBe('rate_limit');
    expect(events.filter((e) => e.event === 'intel.rate_wait')).toEqual([]);
  });
});
