import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDb } from '../helpers/arbor-process.js';
import { runArbor } from '../helpers/run-arbor.js';

const DEMO = fileURLToPath(new URL('../../examples/playbooks/demo.json', import.meta.url));

interface Recorded {
  event: string;
  node_id?: string;
  [field: string]: unknown;
}

/** Runs the demo (a root and two sub-agents, each a process) and returns what the store holds. */
async function demoRun(env: NodeJS.ProcessEnv): Promise<{ stderr: string; events: Recorded[] }> {
  const db = tempDb();
  const run = await runArbor(['run', '--mock-llm', DEMO, 'Say hello.'], {
    env: { ARBOR_DB: db, ARBOR_API_KEY: '', OPENAI_API_KEY: '', ...env },
  });
  expect(run.code).toBe(0);
  const runId = /"run_id":"(run_[^"]+)"/.exec(run.stderr)?.[1] ?? '';
  const listed = await runArbor(['runs', 'events', runId, '--json'], { env: { ARBOR_DB: db } });
  expect(listed.code).toBe(0);
  const events = listed.stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Recorded);
  return { stderr: run.stderr, events };
}

describe('which entry a run’s process children start from', () => {
  it('is the snapshot, built on the first run, with Node’s warnings in the event log only', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'arbor-entry-cache-'));
    const { stderr, events } = await demoRun({ ARBOR_CACHE_DIR: cache });
    const entries = events.filter((event) => event.event === 'child.entry');
    expect(entries).toHaveLength(1);
    const [entry] = entries;
    if (entry === undefined) throw new Error('no child.entry event');
    expect(entry).toMatchObject({ entry: 'snapshot', built: true });
    expect(entry.node_id).toBeUndefined();
    expect(String(entry.snapshot)).toContain(join(cache, 'child-snapshot'));
    expect(stderr).not.toContain('snapshot builder');
    // Recorded before the first child started, and every node ended well.
    const firstReady = events.findIndex((event) => event.event === 'child.ready');
    expect(events.indexOf(entry)).toBeLessThan(firstReady);
    expect(events.filter((event) => event.event === 'node.end').map((e) => e.status)).toEqual([
      'completed',
      'completed',
      'completed',
    ]);

    const again = await demoRun({ ARBOR_CACHE_DIR: cache });
    const reused = again.events.filter((event) => event.event === 'child.entry');
    expect(reused).toEqual([
      expect.objectContaining({ entry: 'snapshot', snapshot: entry.snapshot }),
    ]);
    expect(reused[0]?.built).toBeUndefined();
  }, 120_000);

  it('is the bundle, with the reason recorded, when no snapshot can be built', async () => {
    const blocked = join(mkdtempSync(join(tmpdir(), 'arbor-entry-cache-')), 'a-file');
    writeFileSync(blocked, '');
    const { events } = await demoRun({ ARBOR_CACHE_DIR: blocked });
    const entries = events.filter((event) => event.event === 'child.entry');
    expect(entries).toEqual([expect.objectContaining({ entry: 'bundle' })]);
    expect(String(entries[0]?.reason)).toMatch(/^the child snapshot: /);
    expect(events.filter((event) => event.event === 'node.end')).toHaveLength(3);
  }, 120_000);

  it('is outside every grant, `--fs-read all` included', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'arbor-entry-cache-'));
    // A small text file, so only the protection can refuse the read.
    const target = join(cache, 'note.txt');
    writeFileSync(target, 'cached');
    const playbook = join(mkdtempSync(join(tmpdir(), 'arbor-entry-playbook-')), 'read.json');
    writeFileSync(
      playbook,
      JSON.stringify({
        scripts: [
          {
            steps: [
              { tool_calls: [{ name: 'fs.read', args: { path: target } }] },
              { text: 'Done.' },
            ],
          },
        ],
      }),
    );
    const run = await runArbor(['run', '--mock-llm', playbook, '--fs-read', 'all', 'Read it.'], {
      env: { ARBOR_DB: tempDb(), ARBOR_API_KEY: '', ARBOR_CACHE_DIR: cache },
    });
    expect(run.code).toBe(0);
    const result = run.stderr
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Recorded)
      .find((event) => event.event === 'tool.result' && event.name === 'fs.read');
    expect(result).toMatchObject({ is_error: true });
  }, 120_000);
});
