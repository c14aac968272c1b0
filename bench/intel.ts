import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { createModelClient, type IntelClient, type ModelRequest } from '../src/intel/index.js';
import { IntelConfigSchema } from '../src/protocol/index.js';
import { median, percentile, type BenchResult } from './stats.js';

/**
 * What the model client and its endpoint pool add to a call: the same request sent by a bare
 * `fetch` (body built once, answer read as text and JSON-parsed) and by `generate` (request built
 * from the transcript, breaker and health bookkeeping, timeout, zod validation of the answer), both
 * against the fake LLM answering at once on localhost. The fake runs in its own process, as a
 * real endpoint would, and the two ways are measured in alternating rounds
 * so drift (JIT, GC, the machine) falls on both alike. Also what importing `src/intel` costs a
 * fresh process, on top of the protocol layer every child loads anyway.
 */

const WARMUP = 500;
const ROUNDS = 10;
const SEQUENTIAL = 400;
const CONCURRENT = 800;
const IN_FLIGHT = 16;
const IMPORT_RUNS = 15;

const REQUEST: ModelRequest = {
  system: 'You are a careful assistant.',
  messages: [
    { role: 'user', text: 'Summarise the state of the build in one sentence.' },
    {
      role: 'assistant',
      text: 'Checking.',
      tool_calls: [{ id: 'c1', name: 'ci.status', args: { branch: 'main' } }],
    },
    { role: 'tool', id: 'c1', name: 'ci.status', content: { green: 41, red: 1 }, is_error: false },
  ],
  tools: [
    { name: 'ci.status', description: 'CI status of a branch', input_schema: { type: 'object' } },
  ],
};

const ANSWER = 'The build is green except for one flaky integration test, which is being retried.';

async function timed(run: () => Promise<unknown>, count: number): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const start = process.hrtime.bigint();
    await run();
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return samples;
}

async function throughput(
  run: () => Promise<unknown>,
  count: number,
  inFlight: number,
): Promise<number> {
  let next = 0;
  const start = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next++ < count) await run();
    }),
  );
  return count / (Number(process.hrtime.bigint() - start) / 1e9);
}

function mean(values: readonly number[]): number {
  return values.reduce((sum, v) => sum + v, 0) / values.length;
}

const here = (path: string): string => fileURLToPath(new URL(path, import.meta.url));

/**
 * Runs the fake LLM in a process of its own (from this build, as `arbor mock-llm` would),
 * answering `ANSWER` to everything; resolves with its base URL.
 */
async function startFakeProcess(): Promise<{ url: string; child: ChildProcess }> {
  const playbook = { scripts: [{ steps: [{ text: ANSWER }] }] };
  const code = [
    `const { startFakeLlm } = await import(${JSON.stringify(here('../src/testing/index.js'))});`,
    `const server = await startFakeLlm({ playbook: ${JSON.stringify(playbook)} });`,
    `process.stdout.write(server.url + '\\n');`,
    `process.once('SIGTERM', () => void server.close());`,
  ].join('\n');
  const child = spawn(process.execPath, ['--input-type=module', '-e', code], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [line] = (await once(child.stdout, 'data')) as [Buffer];
  return { url: line.toString().trim(), child };
}

/** Milliseconds to start node and import `modules`, median of several fresh processes. */
function importMs(modules: string[]): number {
  const code = `const t = performance.now(); ${modules.map((m) => `await import(${JSON.stringify(m)});`).join(' ')} console.log(performance.now() - t);`;
  const runs: number[] = [];
  for (let i = 0; i < IMPORT_RUNS; i++) {
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', code], {
      encoding: 'utf8',
    });
    runs.push(Number(out.trim()));
  }
  return median(runs);
}

export async function benchIntel(): Promise<BenchResult> {
  const { url, child } = await startFakeProcess();
  try {
    const client = createModelClient(
      IntelConfigSchema.parse({ endpoints: [{ url, api_key: 'bench' }], model: 'bench-model' }),
    );
    const wire = await captureBody(client, url);
    const headers = { 'content-type': 'application/json', authorization: 'Bearer bench' };
    const bare = async (): Promise<unknown> => {
      const response = await fetch(`${url}/chat/completions`, {
        method: 'POST',
        headers,
        body: wire,
      });
      return JSON.parse(await response.text()) as unknown;
    };
    const viaClient = (): Promise<unknown> => client.generate(REQUEST);

    await timed(bare, WARMUP);
    await timed(viaClient, WARMUP);
    const bareMs: number[] = [];
    const clientMs: number[] = [];
    const bareRates: number[] = [];
    const clientRates: number[] = [];
    // Alternate which goes first, so neither always runs on a warmer or quieter machine.
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? [false, true] : [true, false];
      for (const isClient of order) {
        const run = isClient ? viaClient : bare;
        (isClient ? clientMs : bareMs).push(...(await timed(run, SEQUENTIAL)));
        (isClient ? clientRates : bareRates).push(await throughput(run, CONCURRENT, IN_FLIGHT));
      }
    }

    const protocolImport = importMs([here('../src/protocol/index.js')]);
    const intelImport = importMs([here('../src/protocol/index.js'), here('../src/intel/index.js')]);

    return {
      name: 'intel',
      metrics: {
        'bare fetch, sequential calls/s': Math.round(1_000 / mean(bareMs)),
        'client, sequential calls/s': Math.round(1_000 / mean(clientMs)),
        'bare fetch mean / p50 ms': `${mean(bareMs).toFixed(3)} / ${median(bareMs).toFixed(3)}`,
        'client mean / p50 ms': `${mean(clientMs).toFixed(3)} / ${median(clientMs).toFixed(3)}`,
        'added per call, mean ms': Number((mean(clientMs) - mean(bareMs)).toFixed(3)),
        'added per call, p50 ms': Number((median(clientMs) - median(bareMs)).toFixed(3)),
        'bare fetch / client p99 ms': `${percentile(bareMs, 99).toFixed(3)} / ${percentile(clientMs, 99).toFixed(3)}`,
        [`bare fetch, ${IN_FLIGHT} in flight calls/s`]: Math.round(median(bareRates)),
        [`client, ${IN_FLIGHT} in flight calls/s`]: Math.round(median(clientRates)),
        'import protocol (ms, fresh process)': Number(protocolImport.toFixed(1)),
        'import protocol + intel (ms, fresh process)': Number(intelImport.toFixed(1)),
      },
    };
  } finally {
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
}

/** The exact body the client sends for `REQUEST`, read back from the fake's request record. */
async function captureBody(client: IntelClient, url: string): Promise<string> {
  await client.generate(REQUEST);
  const listing = await fetch(new URL('/__arbor/requests', url));
  const records = (await listing.json()) as { method: string; body: unknown }[];
  const last = records.filter((r) => r.method === 'POST').at(-1);
  if (last === undefined) throw new Error('the fake LLM recorded no request');
  return JSON.stringify(last.body);
}
