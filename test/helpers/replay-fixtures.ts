import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { textDigest } from '../../src/loop/index.js';
import { openSqlDatabase } from '../../src/store/index.js';
import type { PlaybookInput } from '../../src/testing/fake-llm/index.js';
import { ArborProcess, FAST_ENV } from './arbor-process.js';
import { fakeLlm } from './fake-llm.js';
import { readRun, runIdOf } from './resume-run.js';
import { runArbor, type ArborRun } from './run-arbor.js';
import { rounds } from './scripted-run.js';

/**
 * A three-level tree with every kind of step a replay serves: the root runs two children at once
 * (`Mid:` and `Side:`), then asks a person, then answers; Mid reads a file and delegates to a
 * Leaf, which writes a file; Side lists `sub/`. `side` changes what Side answers.
 */
export function treePlaybook(side = 'Side done: listed.'): PlaybookInput {
  return {
    scripts: [
      {
        match: { contains: 'Leaf:' },
        steps: rounds(
          {
            text: 'Leaf writes.',
            tool_calls: [{ name: 'fs.write', args: { path: 'out.txt', content: 'leaf wrote' } }],
          },
          { text: 'Leaf done: out.txt written.' },
        ),
      },
      {
        match: { contains: 'Mid:' },
        steps: rounds(
          {
            text: 'Mid reads and delegates.',
            tool_calls: [
              { name: 'fs.read', args: { path: 'in.txt' } },
              { name: 'subagent.run', args: { instruction: 'Leaf: write out.txt.' } },
            ],
          },
          { text: 'Mid done: read in.txt, the leaf wrote out.txt.' },
        ),
      },
      {
        match: { contains: 'Side:' },
        steps: rounds(
          { text: 'Side looks.', tool_calls: [{ name: 'fs.list', args: { path: 'sub' } }] },
          { text: side },
        ),
      },
      {
        steps: rounds(
          {
            text: 'Root delegates twice at once.',
            tool_calls: [
              { name: 'subagent.run', args: { instruction: 'Mid: read in.txt and delegate.' } },
              { name: 'subagent.run', args: { instruction: 'Side: list the directory.' } },
            ],
          },
          {
            text: 'Root asks.',
            tool_calls: [{ name: 'ask_human', args: { question: 'Ship it?' } }],
          },
          { text: 'Root done: both children answered and the person said yes.' },
        ),
      },
    ],
  };
}

const GRANT = ['--fs-read', '.', '--fs-write', '.'];

/** A directory with a store where a tree is recorded once (its gate answered) and replayed. */
export async function replayDir() {
  const dir = await mkdtemp(join(tmpdir(), 'arbor-replay-'));
  await writeFile(join(dir, 'in.txt'), 'input');
  // What Side lists does not change while the tree runs (the store lives elsewhere).
  await mkdir(join(dir, 'sub'));
  await writeFile(join(dir, 'sub', 'x.txt'), 'x');
  const db = join(await mkdtemp(join(tmpdir(), 'arbor-replay-store-')), 'arbor.db');
  const env = { ...FAST_ENV, ARBOR_DB: db, OPENAI_API_KEY: '' };
  const arbor = (args: string[], cwd = dir, extra: NodeJS.ProcessEnv = {}): Promise<ArborRun> =>
    runArbor(args, { cwd, env: { ...env, ...extra } });
  return {
    dir,
    db,
    arbor,
    /** Records the tree against a fake LLM playing `playbook`; answers its gate `yes`. */
    async record(playbook: PlaybookInput = treePlaybook()) {
      const llm = await fakeLlm(playbook);
      const live = new ArborProcess(
        [
          'run',
          '--intel',
          llm.url,
          '--model',
          'm',
          '--events',
          'ndjson',
          '--ask-fallback',
          'wait',
          ...GRANT,
          'Run the tree.',
        ],
        { cwd: dir, env },
      );
      const gate = await live.waitForEvent('gate.open');
      const runId = String(gate.run_id);
      const answered = await arbor(['gate', 'answer', runId, String(gate.gate), 'yes']);
      expect(answered.code, answered.stderr).toBe(0);
      const ended = await live.exited;
      expect(ended.code, live.stderr).toBe(0);
      expect(existsSync(join(dir, 'out.txt'))).toBe(true);
      return { runId, llm, stdout: live.stdout };
    },
    read: (runId: string) => readRun(db, runId),
    runIdOf,
  };
}

/** Rewrites the recorded system prompt of the node at `path` as a changed prompt would differ. */
export function changePrompt(db: string, runId: string, path: string): void {
  // The store's own binding: node:sqlite where Node has it, better-sqlite3 on Node 20.
  const sql = openSqlDatabase(db);
  const node = sql
    .prepare('SELECT id FROM nodes WHERE run_id = @runId AND path = @path')
    .get({ runId, path }) as { id: string };
  const events = sql
    .prepare(
      "SELECT seq, kind, data FROM events WHERE run_id = @runId AND node_id = @node AND kind IN ('model.system', 'model.call')",
    )
    .all({ runId, node: node.id }) as { seq: number; kind: string; data: string }[];
  const system = events.find((e) => e.kind === 'model.system');
  const text = (JSON.parse(system?.data ?? '{}') as { text: string }).text.replace(
    'You are an agent run by arbor.',
    'You are a careful agent.',
  );
  for (const event of events) {
    const data = JSON.parse(event.data) as Record<string, unknown>;
    if (event.kind === 'model.system') Object.assign(data, { text, digest: textDigest(text) });
    else data.system_digest = textDigest(text);
    sql
      .prepare('UPDATE events SET data = @data WHERE seq = @seq')
      .run({ data: JSON.stringify(data), seq: event.seq });
  }
  sql.close();
}

/** The run a replay recorded, from the line `arbor: replaying run A as B`. */
export function replayIdOf(run: ArborRun): string {
  const id = / as (run_[a-z0-9]+)/.exec(run.stderr)?.[1];
  if (id === undefined) throw new Error(`no replay id in:\n${run.stderr}`);
  return id;
}
