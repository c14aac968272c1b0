import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SqliteStore } from '../src/store/index.js';
import { startFakeLlm } from '../src/testing/index.js';
import { started } from './serve.js';
import { median, percentile, type BenchResult } from './stats.js';

/**
 * Many tasks waiting on a person in one `arbor serve`: each task's root asks `ask_human` and
 * waits. Tasks are sent in waves (each wave parked before the next is sent, so the machine never
 * holds more live children than a wave); once all lie parked, the server's child processes and
 * memory are counted, then every question is answered over A2A at once, and the wake latency
 * (answer arrived → the woken child ready, the `node.woken` events) and each task's answer →
 * completed time are measured. `ARBOR_BENCH_PARKED` sets the number of tasks (default 1,000).
 */
const TASKS = Number(process.env.ARBOR_BENCH_PARKED ?? 1000);
const WAVE = 25;
const ANSWERING = 16;

const ARBOR = fileURLToPath(new URL('../../dist/bundle/arbor.mjs', import.meta.url));

export async function benchParked(): Promise<BenchResult> {
  const llm = await startFakeLlm({
    playbook: {
      scripts: [
        {
          steps: [
            { tool_calls: [{ name: 'ask_human', args: { question: 'Approve?' } }] },
            { text: 'approved' },
          ],
        },
      ],
    },
  });
  const cwd = mkdtempSync(path.join(tmpdir(), 'arbor-bench-parked-'));
  writeFileSync(
    path.join(cwd, 'arbor.toml'),
    `[serve]\npark_after = "300ms"\nmax_runs = ${TASKS + 10}\n`,
  );
  const { NODE_EXTRA_CA_CERTS: _ca, ...env } = process.env;
  const server = spawn(
    process.execPath,
    [ARBOR, 'serve', '--intel', llm.url, '--model', 'm', '--sandbox', 'off'].concat([
      '--listen',
      '127.0.0.1:0',
      '--config',
      'arbor.toml',
    ]),
    { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const pid = server.pid ?? 0;
  try {
    const { url, token } = await started(server.stderr);
    const headers = { authorization: `Bearer ${token}`, 'a2a-version': '1.0' };
    const call = async (method: string, params: unknown): Promise<string> => {
      const response = await fetch(`${url}/a2a/jsonrpc`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      });
      return response.text();
    };
    const metric = async (name: string): Promise<number> => {
      const text = await (await fetch(`${url}/metrics`, { headers })).text();
      return Number(new RegExp(`^${name} ([\\d.e+]+)`, 'm').exec(text)?.[1] ?? 0);
    };
    const tasks: { id: string; contextId: string }[] = [];
    const sendStart = Date.now();
    while (tasks.length < TASKS) {
      const wave = Math.min(WAVE, TASKS - tasks.length);
      const sent = await Promise.all(
        Array.from({ length: wave }, () =>
          call('SendMessage', {
            message: message('Ask, then go on.'),
            configuration: { returnImmediately: true },
          }),
        ),
      );
      for (const text of sent) {
        const task = (JSON.parse(text) as { result?: { task?: { id: string; contextId: string } } })
          .result?.task;
        if (task === undefined) throw new Error(`no task: ${text.slice(0, 300)}`);
        tasks.push(task);
      }
      while ((await metric('arbor_nodes_parked')) < tasks.length) await pause(100);
    }
    const parkAllMs = Date.now() - sendStart;
    await pause(2_000);
    const children = childrenOf(pid);
    const rss = (await metric('arbor_process_resident_memory_bytes')) / 2 ** 20;
    const heap = (await metric('arbor_nodejs_heap_size_used_bytes')) / 2 ** 20;
    const answerStart = Date.now();
    const completed: number[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: ANSWERING }, async () => {
        while (next < tasks.length) {
          const task = tasks[next++]!;
          const start = Date.now();
          const text = await call('SendMessage', {
            message: { ...message('yes'), taskId: task.id, contextId: task.contextId },
          });
          if (!text.includes('TASK_STATE_COMPLETED'))
            throw new Error(`task did not complete: ${text.slice(0, 300)}`);
          completed.push(Date.now() - start);
        }
      }),
    );
    const answerAllMs = Date.now() - answerStart;
    const wakes = wakeTimes(cwd);
    return {
      name: 'parked',
      metrics: {
        'tasks waiting on a person': TASKS,
        'all sent and parked (waves of 25)': `${(parkAllMs / 1000).toFixed(1)} s`,
        'child processes while all lie parked': children,
        'server resident memory while all lie parked': `${rss.toFixed(1)} MiB`,
        'server JS heap used while all lie parked': `${heap.toFixed(1)} MiB`,
        'wake latency (answer arrived → woken child ready), p50': `${median(wakes).toFixed(1)} ms`,
        'wake latency, p95': `${percentile(wakes, 95).toFixed(1)} ms`,
        [`answer → task completed (${ANSWERING} answering at once), p50`]: `${median(completed).toFixed(1)} ms`,
        'answer → task completed, p95': `${percentile(completed, 95).toFixed(1)} ms`,
        'all answered and completed': `${(answerAllMs / 1000).toFixed(1)} s`,
        environment: 'NODE_EXTRA_CA_CERTS unset',
      },
    };
  } finally {
    server.kill('SIGKILL');
    await llm.close();
  }
}

function message(text: string) {
  return { messageId: `m${Math.random()}`, role: 'ROLE_USER', parts: [{ text }] };
}

/** The `wake_ms` of every `node.woken` event the server recorded, read from its store. */
function wakeTimes(cwd: string): number[] {
  const store = new SqliteStore(path.join(cwd, '.arbor', 'arbor.db'));
  try {
    return store
      .listRuns({ limit: 100_000 })
      .flatMap((run) => store.listEvents(run.id))
      .flatMap((event) => (event.kind === 'node.woken' ? [Number(event.data.wake_ms)] : []));
  } finally {
    store.close();
  }
}

/** Processes whose parent is `pid` (Linux). */
function childrenOf(pid: number): number {
  let count = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) count += 1;
    } catch {
      // Gone while we looked.
    }
  }
  return count;
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
