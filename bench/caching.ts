import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startFakeLlm } from '../src/testing/fake-llm/index.js';
import type { BenchResult } from './stats.js';

/**
 * What Anthropic prompt caching saves a ten-step child: the same `arbor run` (a process child,
 * nine `fs.read` steps, each over a 6 KB file, and a final answer, model `claude-sonnet-4-5`) against the
 * fake LLM playing Anthropic's documented caching (a prefix up to a `cache_control` breakpoint is
 * written on first sight, read on every repeat), once with `prompt_cache` on (the default) and
 * once off. Tokens are the fake's count of the requests (about four characters a token); the cost
 * is the supervisor's, from the default price table (`@pydantic/genai-prices`: a cache read at a
 * tenth of the input rate, a five-minute write at 1.25×). Token counts are deterministic, so one
 * run of each is the measurement.
 */

const execFileAsync = promisify(execFile);
const ARBOR_BIN = fileURLToPath(new URL('../../dist/bundle/arbor.mjs', import.meta.url));
const STEPS = 10;
const MODEL = 'claude-sonnet-4-5';

interface RunUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens?: number;
  cache_write_tokens?: number;
  cost_usd?: number;
}

function playbook() {
  const reads = Array.from({ length: STEPS - 1 }, (_, i) => ({
    text: `Reading part ${i + 1}.`,
    tool_calls: [{ name: 'fs.read', args: { path: `notes-${i + 1}.txt` } }],
  }));
  return { scripts: [{ steps: [...reads, { text: 'The notes say the build is green.' }] }] };
}

async function runOnce(dir: string, url: string, cache: boolean): Promise<RunUsage> {
  const config = join(dir, cache ? 'cache-on.toml' : 'cache-off.toml');
  await writeFile(
    config,
    [
      '[intelligence]',
      `model = "${MODEL}"`,
      '[[intelligence.endpoint]]',
      `url = "${url}"`,
      'dialect = "anthropic"',
      `prompt_cache = { enabled = ${String(cache)} }`,
      '',
    ].join('\n'),
  );
  const { stdout } = await execFileAsync(
    process.execPath,
    [
      ARBOR_BIN,
      'run',
      '--config',
      config,
      '--json',
      '--db',
      join(dir, `${String(cache)}.db`),
      '--max-steps',
      String(STEPS + 2),
      'Read the nine notes files and say what they say.',
    ],
    { cwd: dir, env: { ...process.env, ARBOR_API_KEY: 'bench' }, maxBuffer: 1 << 24 },
  );
  const report = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as {
    status?: string;
    usage?: RunUsage;
  };
  if (report.status !== 'completed' || report.usage === undefined)
    throw new Error(`the ${cache ? 'cached' : 'uncached'} run did not complete: ${stdout}`);
  return report.usage;
}

/** Input tokens not read from the cache (cache writes among them, at 1.25× the input rate). */
function fullRateInput(usage: RunUsage): number {
  return usage.input_tokens - (usage.cache_read_tokens ?? 0);
}

export async function benchCaching(): Promise<BenchResult> {
  const dir = await mkdtemp(join(tmpdir(), 'arbor-bench-caching-'));
  const fake = await startFakeLlm({ playbook: playbook() });
  try {
    for (let i = 1; i < STEPS; i++)
      await writeFile(join(dir, `notes-${i}.txt`), `Part ${i}: the build is green. `.repeat(200));
    const url = fake.url;
    const on = await runOnce(dir, url, true);
    const off = await runOnce(dir, url, false);
    const costOn = on.cost_usd ?? Number.NaN;
    const costOff = off.cost_usd ?? Number.NaN;
    return {
      name: `prompt caching, a ${STEPS}-step child (${MODEL}, fake LLM, default price table)`,
      metrics: {
        'input tokens, uncached run': off.input_tokens,
        'input tokens, cached run': on.input_tokens,
        'cache writes, cached run': on.cache_write_tokens ?? 0,
        'cache reads, cached run': on.cache_read_tokens ?? 0,
        'input not read from the cache, uncached run': fullRateInput(off),
        'input not read from the cache, cached run': fullRateInput(on),
        'cost USD, uncached run': Number(costOff.toFixed(6)),
        'cost USD, cached run': Number(costOn.toFixed(6)),
        'cost saved %': Number((100 * (1 - costOn / costOff)).toFixed(1)),
      },
    };
  } finally {
    await fake.close();
    await rm(dir, { recursive: true, force: true });
  }
}
