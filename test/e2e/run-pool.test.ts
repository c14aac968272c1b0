import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDb } from '../helpers/arbor-process.js';
import { leafScript, planDir, runRecord } from '../helpers/plan-run.js';
import { runArbor } from '../helpers/run-arbor.js';

interface Recorded {
  event: string;
  node_id?: string;
  [field: string]: unknown;
}

/**
 * A root that delegates twice, one sub-agent after the other, each time after a model call slow
 * enough for a pool to have a child loaded (a snapshot child loads in well under a second).
 */
function playbook(): string {
  const dir = mkdtempSync(join(tmpdir(), 'arbor-pool-playbook-'));
  const path = join(dir, 'pool.json');
  const delegate = (k: number) => ({
    tool_calls: [
      { name: 'subagent.run', args: { instruction: `Helper ${k}: say done.`, tools: [] } },
    ],
    delay_ms: 3_000,
  });
  writeFileSync(
    path,
    JSON.stringify({
      scripts: [
        { name: 'helper', match: { contains: 'Helper' }, steps: [{ text: 'done' }] },
        { name: 'root', steps: [delegate(1), delegate(2), { text: 'All done.' }] },
      ],
    }),
  );
  return path;
}

async function run(args: string[]): Promise<Recorded[]> {
  const db = tempDb();
  const cache = mkdtempSync(join(tmpdir(), 'arbor-pool-cache-'));
  const env = { ARBOR_DB: db, ARBOR_CACHE_DIR: cache, ARBOR_API_KEY: '', OPENAI_API_KEY: '' };
  const done = await runArbor(['run', '--mock-llm', playbook(), ...args, 'Delegate twice.'], {
    env,
  });
  expect(done.code, done.stderr).toBe(0);
  expect(done.stdout.trim()).toBe('All done.');
  const runId = /"run_id":"(run_[^"]+)"/.exec(done.stderr)?.[1] ?? '';
  const listed = await runArbor(['runs', 'events', runId, '--json'], { env: { ARBOR_DB: db } });
  return listed.stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Recorded);
}

const readiness = (events: Recorded[]) =>
  events.filter((event) => event.event === 'child.ready').map((event) => event.pooled === true);

describe('arbor run --pool', () => {
  it('gives sub-agents children the pool started after the first was asked for', async () => {
    const events = await run(['--pool', '2']);
    // The root's child was asked for before the pool held any: it started cold; the pool then
    // had one loaded for each sub-agent.
    expect(readiness(events)).toEqual([false, true, true]);
    expect(events.filter((event) => event.event === 'node.end').map((e) => e.status)).toEqual([
      'completed',
      'completed',
      'completed',
    ]);
  }, 120_000);

  it('starts every child cold without it', async () => {
    expect(readiness(await run([]))).toEqual([false, false, false]);
  }, 120_000);
});

/** Two leaves, one after the other; the first answers slowly enough for a pool to load a child. */
const CHAIN = `goal = "chain"

[[subtask]]
id = "a"
instruction = "Task A: first"

[[subtask]]
id = "b"
instruction = "Task B: second"
deps = ["a"]
`;

describe('arbor plan run --pool', () => {
  it.each([
    [
      ['--pool', '2'],
      [false, true],
    ],
    [[], [false, false]],
  ])(
    'with %j, gives the later leaf a pooled child: %j',
    async (args, pooled) => {
      const plan = await planDir(CHAIN, {
        scripts: [
          leafScript('Task A', { text: 'A done', delay_ms: 3_000 }),
          leafScript('Task B', { text: 'B done' }),
        ],
      });
      const cache = mkdtempSync(join(tmpdir(), 'arbor-pool-cache-'));
      const { code, report, stderr } = await plan.arbor('run', 'plan.toml', args, {
        ARBOR_CACHE_DIR: cache,
      });
      expect(code, stderr).toBe(0);
      expect(report?.leaves.map((leaf) => leaf.status)).toEqual(['done', 'done']);
      const { events } = runRecord(plan.db, report?.run_id ?? '');
      expect(
        events.filter((event) => event.kind === 'child.ready').map((e) => e.data.pooled === true),
      ).toEqual(pooled);
    },
    120_000,
  );
});
