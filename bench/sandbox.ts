import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runStatePaths } from '../src/authority/index.js';
import { execEnv, prepareCommand, probeSandbox, runCommand } from '../src/tools/index.js';
import { median, percentile, type BenchResult } from './stats.js';

/**
 * What the exec sandbox costs: `sh -c true` run directly and run in bubblewrap under the default
 * grant (the working directory, the store protected), through the same `prepareCommand` and
 * `runCommand` the `exec` tool uses, interleaved so both see the same machine.
 */
const RUNS = 40;

export async function benchSandbox(): Promise<BenchResult> {
  const settings = await probeSandbox({ trust: { writable: [] } });
  if (settings.mode !== 'bwrap') {
    return {
      name: 'sandbox',
      metrics: { skipped: `bubblewrap unavailable: ${settings.reason ?? ''}` },
    };
  }
  const cwd = mkdtempSync(path.join(tmpdir(), 'arbor-bench-sandbox-'));
  const caveats = {
    fs_read: [cwd],
    fs_write: [cwd],
    exec: 'all' as const,
    net: [],
    max_calls: 'unlimited' as const,
  };
  const protect = runStatePaths({ cwd, dbPath: '.arbor/arbor.db' });
  const env = execEnv(process.env);
  const options = { cwd, timeoutMs: 10_000, maxOutputBytes: 4096, killGraceMs: 500 };
  const direct: number[] = [];
  const sandboxed: number[] = [];
  const planning: number[] = [];
  for (let i = 0; i < RUNS; i += 1) {
    let start = process.hrtime.bigint();
    await runCommand('true', { ...options, env });
    direct.push(Number(process.hrtime.bigint() - start) / 1e6);
    start = process.hrtime.bigint();
    const prepared = prepareCommand({ settings, caveats, protect, cwd, env });
    planning.push(Number(process.hrtime.bigint() - start) / 1e6);
    if (!prepared.ok) throw new Error(prepared.message);
    const result = await runCommand('true', { ...options, env: prepared.env, wrap: prepared.wrap });
    sandboxed.push(Number(process.hrtime.bigint() - start) / 1e6);
    if (result.exitCode !== 0)
      throw new Error(`sandboxed true exited ${String(result.exitCode)}: ${result.output}`);
  }
  const fmt = (values: number[]): string =>
    `p50 ${median(values).toFixed(2)} ms, p95 ${percentile(values, 95).toFixed(2)} ms`;
  return {
    name: 'sandbox',
    metrics: {
      runs: RUNS,
      '`sh -c true` directly': fmt(direct),
      '`sh -c true` in the sandbox (planning included)': fmt(sandboxed),
      'planning the mounts alone': fmt(planning),
      'added per command, p50': `${(median(sandboxed) - median(direct)).toFixed(2)} ms`,
    },
  };
}
