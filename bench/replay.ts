import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startFakeLlm } from '../src/testing/fake-llm/index.js';
import { median, type BenchResult } from './stats.js';

/**
 * What a replay costs against the run it replays. The same three-level tree each time (the root
 * runs two children at once, one of which delegates to a leaf; `fs.read`, `fs.write` and
 * `fs.list` along the way: 4 nodes, 8 model calls) is recorded with `arbor run` against the fake
 * LLM answering at once, then replayed from its records with `arbor replay` (tool results
 * recorded, the default) and with `--tools live`, interleaved, `ROUNDS` times each. The fake
 * answers with no delay, so the original's time is arbor's own plus the fake's; a real model's
 * seconds per call are what a replay saves on top of that. Wall time is the CLI process's, start
 * to exit; the environment the bench runs in (`NODE_EXTRA_CA_CERTS` set or not) is reported.
 */

const execFileAsync = promisify(execFile);
const ARBOR_BIN = fileURLToPath(new URL('../../dist/bundle/arbor.mjs', import.meta.url));
const ROUNDS = 5;

const rounds = (...list: Record<string, unknown>[]) =>
  list.flatMap((round) => {
    const calls = Array.isArray(round.tool_calls) ? round.tool_calls.length : 0;
    return [round, ...Array.from({ length: Math.max(0, calls - 1) }, () => ({ text: '-' }))];
  });

const PLAYBOOK = {
  scripts: [
    {
      match: { contains: 'Leaf:' },
      steps: rounds(
        { tool_calls: [{ name: 'fs.write', args: { path: 'out.txt', content: 'leaf' } }] },
        { text: 'Leaf done.' },
      ),
    },
    {
      match: { contains: 'Mid:' },
      steps: rounds(
        {
          tool_calls: [
            { name: 'fs.read', args: { path: 'in.txt' } },
            { name: 'subagent.run', args: { instruction: 'Leaf: write out.txt.' } },
          ],
        },
        { text: 'Mid done.' },
      ),
    },
    {
      match: { contains: 'Side:' },
      steps: rounds(
        { tool_calls: [{ name: 'fs.list', args: { path: 'sub' } }] },
        { text: 'Side done.' },
      ),
    },
    {
      steps: rounds(
        {
          tool_calls: [
            { name: 'subagent.run', args: { instruction: 'Mid: read and delegate.' } },
            { name: 'subagent.run', args: { instruction: 'Side: list sub.' } },
          ],
        },
        { text: 'Root done.' },
      ),
    },
  ],
};

async function timed(args: string[], cwd: string): Promise<{ ms: number; stderr: string }> {
  const started = performance.now();
  const { stderr } = await execFileAsync(process.execPath, [ARBOR_BIN, ...args], {
    cwd,
    env: { ...process.env, ARBOR_API_KEY: 'bench' },
    maxBuffer: 1 << 24,
  });
  return { ms: performance.now() - started, stderr };
}

export async function benchReplay(): Promise<BenchResult> {
  const llm = await startFakeLlm({ playbook: PLAYBOOK });
  const dir = await mkdtemp(join(tmpdir(), 'arbor-bench-replay-'));
  await writeFile(join(dir, 'in.txt'), 'input');
  await mkdir(join(dir, 'sub'));
  const db = join(dir, 'runs.db');
  const grant = ['--fs-read', '.', '--fs-write', '.', '--events', 'none', '--db', db];
  const original: number[] = [];
  const recorded: number[] = [];
  const live: number[] = [];
  let calls = 0;
  try {
    for (let i = 0; i < ROUNDS; i += 1) {
      // The same world for each: the leaf creates out.txt afresh.
      await rm(join(dir, 'out.txt'), { force: true });
      const before = llm.requests.length;
      const run = await timed(
        ['run', '--intel', llm.url, '--model', 'm', ...grant, 'Run the tree.'],
        dir,
      );
      calls = llm.requests.length - before;
      original.push(run.ms);
      const runId = /run (run_[a-z0-9]+)/.exec(run.stderr)?.[1] ?? '';
      const served = llm.requests.length;
      recorded.push((await timed(['replay', runId, ...grant], dir)).ms);
      await rm(join(dir, 'out.txt'), { force: true });
      live.push((await timed(['replay', runId, '--tools', 'live', ...grant], dir)).ms);
      if (llm.requests.length !== served) throw new Error('a replay called the model');
    }
  } finally {
    await llm.close();
  }
  return {
    name: 'replay',
    metrics: {
      environment:
        process.env.NODE_EXTRA_CA_CERTS === undefined
          ? 'no NODE_EXTRA_CA_CERTS'
          : 'NODE_EXTRA_CA_CERTS set',
      'model calls: original run': calls,
      'model calls: replay': 0,
      'original run wall p50 (ms)': Math.round(median(original)),
      'replay, tools recorded, wall p50 (ms)': Math.round(median(recorded)),
      'replay, tools live, wall p50 (ms)': Math.round(median(live)),
      'replay ÷ original (recorded)': Number((median(recorded) / median(original)).toFixed(2)),
    },
  };
}
