import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SqliteStore } from '../src/store/index.js';
import { DEFAULT_TIMING, Supervisor } from '../src/supervisor/index.js';
import type { BenchResult } from './stats.js';

/**
 * Supervisor frame throughput: 50 children stream `event` frames at once; the supervisor reads,
 * validates and records every one of them in the SQLite store, as in a real run.
 */
const CHILDREN = 50;
const EVENTS_PER_CHILD = 4_000;

export async function benchSupervisorThroughput(): Promise<BenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'arbor-bench-'));
  const fixture = fileURLToPath(
    new URL('../../bench/fixtures/streaming-child.mjs', import.meta.url),
  );
  try {
    const store = new SqliteStore(join(dir, 'bench.db'));
    const env = {
      ...process.env,
      ARBOR_CHILD_COMMAND: `${process.execPath} ${fixture}`,
      ARBOR_BENCH_EVENTS: String(EVENTS_PER_CHILD),
    };
    let frames = 0;
    let firstAt = 0n;
    let lastAt = 0n;
    const started = process.hrtime.bigint();
    const cpuBefore = process.cpuUsage();
    await Promise.all(
      Array.from({ length: CHILDREN }, async (_, i) => {
        const runId = `bench_${i}`;
        store.createRun({
          id: runId,
          instruction: 'stream',
          status: 'running',
          createdAt: Date.now(),
          meta: {},
        });
        const supervisor = new Supervisor({
          runId,
          store,
          timing: DEFAULT_TIMING,
          env,
          onEvent: (event) => {
            if (event.type !== 'event') return;
            frames += 1;
            lastAt = process.hrtime.bigint();
            if (firstAt === 0n) firstAt = lastAt;
          },
        });
        const result = await supervisor.runRoot({
          instruction: 'stream events',
          intelligence: {
            endpoints: [{ url: 'http://127.0.0.1:9/v1', dialect: 'openai', headers: {} }],
            model: 'none',
            sampling: {},
            timeout_ms: 1000,
            retries: 0,
            breaker: { threshold: 3, cooldown_ms: 5000, cooldown_max_ms: 60000 },
            prices: {},
          },
          limits: {
            max_steps: 1,
            max_depth: 0,
            priority: 'normal',
            loop_threshold: 4,
            stall_turns: 3,
          },
          context_seed: [],
          mcp_servers: [],
          a2a_peers: [],
          gated_tools: [],
          warm: false,
          role: 'agent',
          caveats: {
            fs_read: 'all',
            fs_write: 'all',
            exec: 'all',
            net: 'all',
            max_calls: 'unlimited',
          },
          content_isolation: { enabled: true, spotlight: true, max_content_bytes: 65_536 },
        });
        if (result.end.outcome.status !== 'completed')
          throw new Error(`child ${i} ended ${result.end.outcome.status}`);
      }),
    );
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const cpu = process.cpuUsage(cpuBefore);
    const streaming = Number(lastAt - firstAt) / 1e9;
    store.close();
    const expected = CHILDREN * EVENTS_PER_CHILD;
    if (frames < expected) throw new Error(`saw ${frames} of ${expected} event frames`);
    return {
      name: 'supervisor-throughput',
      metrics: {
        children: CHILDREN,
        'event frames': frames,
        'wall time s (incl. 50 spawns)': Number(seconds.toFixed(2)),
        'frames/s while streaming (first to last event)': Math.round(frames / streaming),
        'supervisor CPU µs per frame (all work, incl. spawns)': Number(
          ((cpu.user + cpu.system) / frames).toFixed(1),
        ),
      },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
