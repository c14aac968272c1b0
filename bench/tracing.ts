import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startFakeLlm } from '../src/testing/index.js';
import { median, percentile, type BenchResult } from './stats.js';

/**
 * What tracing costs a run: `arbor run` of a two-level delegation on the fake LLM, wall time from
 * start to exit, with tracing off and with it on (exporting to a local OTLP receiver that answers
 * at once), interleaved so both see the same machine.
 */
const RUNS = 12;
const ARBOR = fileURLToPath(new URL('../../dist/bundle/arbor.mjs', import.meta.url));

export async function benchTracing(): Promise<BenchResult> {
  const llm = await startFakeLlm({
    playbook: {
      scripts: [
        { match: { contains: 'Sub:' }, steps: [{ text: 'sub done' }] },
        {
          steps: [
            { tool_calls: [{ name: 'subagent.run', args: { instruction: 'Sub: answer.' } }] },
            { text: 'done' },
          ],
        },
      ],
    },
  });
  let spans = 0;
  const receiver = createServer((request, response) => {
    request.on('data', () => undefined);
    request.on('end', () => {
      spans++;
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  const cwd = mkdtempSync(path.join(tmpdir(), 'arbor-bench-tracing-'));
  // Asynchronous: the fake LLM answers from this process while the run goes.
  const run = (env: NodeJS.ProcessEnv): Promise<number> =>
    new Promise((resolve, reject) => {
      const start = process.hrtime.bigint();
      const child = spawn(
        process.execPath,
        [
          ARBOR,
          'run',
          '--intel',
          llm.url,
          '--model',
          'm',
          '--sandbox',
          'off',
          '--events',
          'none',
          'Delegate.',
        ],
        { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] },
      );
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      child.on('close', (code) => {
        if (code === 0) resolve(Number(process.hrtime.bigint() - start) / 1e6);
        else reject(new Error(`arbor run failed: ${stderr}`));
      });
    });
  const off: number[] = [];
  const on: number[] = [];
  try {
    await run({});
    for (let i = 0; i < RUNS; i += 1) {
      off.push(await run({ OTEL_EXPORTER_OTLP_ENDPOINT: undefined }));
      on.push(
        await run({
          OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
          OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        }),
      );
    }
  } finally {
    receiver.close();
    await llm.close();
  }
  const fmt = (values: number[]): string =>
    `p50 ${median(values).toFixed(1)} ms, p95 ${percentile(values, 95).toFixed(1)} ms`;
  return {
    name: 'tracing',
    metrics: {
      runs: RUNS,
      '`arbor run` (two nodes), tracing off': fmt(off),
      '`arbor run` (two nodes), tracing on': fmt(on),
      'added per run, p50': `${(median(on) - median(off)).toFixed(1)} ms`,
      'exports received': spans,
    },
  };
}
