import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startFakeLlm } from '../src/testing/index.js';
import { median, percentile, type BenchResult } from './stats.js';

/**
 * `arbor serve` under load, as a client sees it: a real server process on a fake LLM, sent
 * trivial tasks over A2A (a blocking `SendMessage` each: a root agent in its own process, one
 * model call, the answer). Reported: the latency of one task alone, tasks per second with several
 * clients at once, and the server's resident memory idle (before and after the load).
 */
const SEQUENTIAL = 30;
const CLIENTS = 4;
const PER_CLIENT = 15;

const ARBOR = fileURLToPath(new URL('../../dist/bundle/arbor.mjs', import.meta.url));

export async function benchServe(): Promise<BenchResult> {
  const llm = await startFakeLlm({ playbook: { scripts: [{ steps: [{ text: 'done' }] }] } });
  const cwd = mkdtempSync(path.join(tmpdir(), 'arbor-bench-serve-'));
  const child = spawn(
    process.execPath,
    [
      ARBOR,
      'serve',
      '--intel',
      llm.url,
      '--model',
      'm',
      '--sandbox',
      'off',
      '--listen',
      '127.0.0.1:0',
    ],
    { cwd, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  try {
    const { url, token } = await started(child.stderr);
    const headers = { authorization: `Bearer ${token}`, 'a2a-version': '1.0' };
    const send = async (): Promise<number> => {
      const start = process.hrtime.bigint();
      const response = await fetch(`${url}/a2a/jsonrpc`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'SendMessage',
          params: {
            message: {
              messageId: `m${Math.random()}`,
              role: 'ROLE_USER',
              parts: [{ text: 'Say done.' }],
            },
          },
        }),
      });
      const text = await response.text();
      if (!text.includes('TASK_STATE_COMPLETED'))
        throw new Error(`task did not complete: ${text.slice(0, 300)}`);
      return Number(process.hrtime.bigint() - start) / 1e6;
    };
    const rss = async (): Promise<number> => {
      const text = await (await fetch(`${url}/metrics`, { headers })).text();
      const match = /^arbor_process_resident_memory_bytes (\d+)/m.exec(text);
      return Number(match?.[1] ?? 0) / 2 ** 20;
    };
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const idleBefore = await rss();
    await send(); // warm-up
    const alone: number[] = [];
    for (let i = 0; i < SEQUENTIAL; i += 1) alone.push(await send());
    const loadStart = process.hrtime.bigint();
    const concurrent = (
      await Promise.all(
        Array.from({ length: CLIENTS }, async () => {
          const times: number[] = [];
          for (let i = 0; i < PER_CLIENT; i += 1) times.push(await send());
          return times;
        }),
      )
    ).flat();
    const loadMs = Number(process.hrtime.bigint() - loadStart) / 1e6;
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const idleAfter = await rss();
    return {
      name: 'serve',
      metrics: {
        'one task alone (SendMessage → completed), p50': `${median(alone).toFixed(1)} ms`,
        'one task alone, p95': `${percentile(alone, 95).toFixed(1)} ms`,
        [`${CLIENTS} clients at once: tasks per second`]: (
          concurrent.length /
          (loadMs / 1000)
        ).toFixed(1),
        [`${CLIENTS} clients at once: latency p50`]: `${median(concurrent).toFixed(1)} ms`,
        'idle server, resident memory (before the load)': `${idleBefore.toFixed(1)} MiB`,
        [`idle server, resident memory (after ${SEQUENTIAL + CLIENTS * PER_CLIENT + 1} tasks)`]: `${idleAfter.toFixed(1)} MiB`,
      },
    };
  } finally {
    child.kill('SIGKILL');
    await llm.close();
  }
}

/** The URL and operator token a starting `arbor serve` writes on its stderr. */
export function started(stderr: NodeJS.ReadableStream): Promise<{ url: string; token: string }> {
  return new Promise((resolve, reject) => {
    let text = '';
    stderr.setEncoding('utf8');
    stderr.on('data', (chunk: string) => {
      text += chunk;
      const url = /serving A2A at (\S+)/.exec(text)?.[1];
      const token = /operator token \(written to [^)]*\): (\S+)/.exec(text)?.[1];
      if (url !== undefined && token !== undefined) resolve({ url, token });
    });
    stderr.on('end', () => {
      reject(new Error(`arbor serve ended before it listened:\n${text}`));
    });
  });
}
