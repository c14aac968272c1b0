import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { DIRECT_SYSTEM, rootPhrase, subtask, type Framework } from './delegation-playbook.js';

/**
 * The peer frameworks live in their own package, `bench/peers/`, which arbor never depends on:
 * they run in a separate `node` process that prints its times as JSON, so nothing here imports
 * them and the benchmark runs without them.
 */
const PEERS_DIR = fileURLToPath(new URL('../../bench/peers/', import.meta.url));
export const PEERS_INSTALL = 'npm ci --prefix bench/peers';

export type PeerFramework = Extract<Framework, 'openai-agents' | 'langgraph'>;
export const PEER_FRAMEWORKS: readonly PeerFramework[] = ['openai-agents', 'langgraph'];

const PeerTimesSchema = z.strictObject({
  framework: z.enum(['openai-agents', 'langgraph']),
  versions: z.record(z.string(), z.string()),
  delegate: z.array(z.number()),
  noop: z.array(z.number()),
  direct: z.array(z.number()),
});
export type PeerTimes = z.infer<typeof PeerTimesSchema>;

export function arePeersInstalled(): boolean {
  return existsSync(join(PEERS_DIR, 'node_modules'));
}

/** Runs one peer's warm-up and timed runs in its own process and reads back its times. */
export async function runPeer(
  framework: PeerFramework,
  options: { url: string; n: number; reps: number; warmup: number; calls: number },
): Promise<PeerTimes> {
  const args = [
    join(PEERS_DIR, 'run.mjs'),
    ...['--framework', framework, '--url', options.url],
    ...['--n', String(options.n), '--reps', String(options.reps)],
    ...['--warmup', String(options.warmup), '--calls', String(options.calls)],
    ...['--delegate', `${rootPhrase('delegate', framework)}: coordinate the benchmark.`],
    ...['--noop', `${rootPhrase('noop', framework)}: coordinate the benchmark.`],
    ...['--system', DIRECT_SYSTEM, '--task', subtask('direct')],
  ];
  const child = spawn(process.execPath, args, {
    cwd: PEERS_DIR,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: {
      ...process.env,
      OPENAI_API_KEY: 'bench',
      // No telemetry from either framework, whatever the caller's environment says.
      OPENAI_AGENTS_DISABLE_TRACING: '1',
      LANGSMITH_TRACING: 'false',
      LANGCHAIN_TRACING_V2: 'false',
    },
  });
  let stdout = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => (stdout += chunk));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  if (code !== 0) throw new Error(`bench/peers/run.mjs (${framework}) exited ${code}`);
  return PeerTimesSchema.parse(JSON.parse(stdout));
}
