import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStore } from '../../src/store/index.js';
import type { EventRecord, NodeRecord, RunRecord } from '../../src/supervisor/index.js';
import type { PlaybookInput } from '../../src/testing/fake-llm/index.js';
import type { TranscriptEntry } from '../../src/protocol/index.js';
import { ArborProcess, FAST_ENV } from './arbor-process.js';
import { fakeLlm } from './fake-llm.js';
import { runArbor, type ArborRun } from './run-arbor.js';

/**
 * A three-level tree: the root delegates to a middle agent, which delegates to a leaf and lists
 * the directory at once; the leaf lists it too. Every agent answers; the root quotes the middle.
 */
export const THREE_LEVELS: PlaybookInput = {
  scripts: [
    {
      match: { contains: 'Leaf:' },
      steps: [
        {
          text: 'Leaf looks.',
          tool_calls: [{ name: 'fs.list', args: { path: '.' } }],
          delay_ms: 150,
        },
        { text: 'Leaf done: the directory is listed.' },
      ],
    },
    {
      match: { contains: 'Mid:' },
      steps: [
        {
          text: 'Mid delegates and looks.',
          tool_calls: [
            { name: 'subagent.run', args: { instruction: 'Leaf: list the directory.' } },
            { name: 'fs.list', args: { path: '.' } },
          ],
        },
        { text: 'Mid done: the leaf listed the directory.' },
      ],
    },
    {
      steps: [
        {
          text: 'Root delegates.',
          tool_calls: [
            { name: 'subagent.run', args: { instruction: 'Mid: delegate the listing.' } },
          ],
        },
        { text: 'Root done: the tree of three answered.' },
      ],
    },
  ],
};

/** THREE_LEVELS, but the leaf asks a person (and lists the directory) before it answers. */
export const ASKING_TREE: PlaybookInput = {
  scripts: THREE_LEVELS.scripts.map((script) =>
    script.match?.contains === 'Leaf:'
      ? {
          ...script,
          steps: [
            {
              text: 'Leaf asks, then looks.',
              tool_calls: [
                { name: 'ask_human', args: { question: 'May the leaf look?' } },
                { name: 'fs.list', args: { path: '.' } },
              ],
            },
            ...script.steps.slice(1),
          ],
        }
      : script,
  ),
};

/** A directory with its own store and fake LLM, where `arbor run` and `arbor resume` are run. */
export async function resumeDir(playbook: PlaybookInput = THREE_LEVELS) {
  const dir = await mkdtemp(join(tmpdir(), 'arbor-resume-'));
  const llm = await fakeLlm(playbook);
  const db = join(dir, 'arbor.db');
  const flags = ['--intel', llm.url, '--model', 'm', '--events', 'ndjson', '--fs-read', '.'];
  const env = (extra: NodeJS.ProcessEnv = {}) => ({ ...FAST_ENV, ARBOR_DB: db, ...extra });
  return {
    dir,
    db,
    llm,
    run: (instruction: string, extra?: NodeJS.ProcessEnv, args: string[] = []): Promise<ArborRun> =>
      runArbor(['run', ...flags, ...args, instruction], { cwd: dir, env: env(extra) }),
    /** `arbor resume` as a live process, to answer what it asks while it runs. */
    resumeLive: (runId: string, args: string[] = []): ArborProcess =>
      new ArborProcess(['resume', runId, ...flags, ...args], { cwd: dir, env: env() }),
    /** `arbor gate answer` on this store. */
    answer: (runId: string, gate: string, text: string): Promise<ArborRun> =>
      runArbor(['gate', 'answer', runId, gate, text], { cwd: dir, env: env() }),
    resume: (
      runId: string,
      args: string[] = [],
      extra?: NodeJS.ProcessEnv,
      input?: string,
    ): Promise<ArborRun> =>
      runArbor(['resume', runId, ...flags, ...args], {
        cwd: dir,
        env: env(extra),
        ...(input === undefined ? {} : { input }),
      }),
    /** `arbor resume` with no `--intel` or `--model`: the run's recorded ones, unless `args` say. */
    resumeRecorded: (runId: string, args: string[] = []): Promise<ArborRun> =>
      runArbor(['resume', runId, '--events', 'ndjson', ...args], { cwd: dir, env: env() }),
    /** `arbor run` as a live process, to feed and watch while it runs. */
    runLive: (instruction: string, extra?: NodeJS.ProcessEnv, args: string[] = []): ArborProcess =>
      new ArborProcess(['run', ...flags, ...args, instruction], { cwd: dir, env: env(extra) }),
    /** The run's records, read with a store opened as any arbor command opens it. */
    read: (runId: string) => readRun(db, runId),
  };
}

export interface RunRecords {
  run: RunRecord | undefined;
  nodes: NodeRecord[];
  events: EventRecord[];
  transcripts: Map<string, TranscriptEntry[]>;
}

export function readRun(db: string, runId: string): RunRecords {
  const store = new SqliteStore(db);
  try {
    const nodes = store.listNodes(runId);
    return {
      run: store.getRun(runId),
      nodes,
      events: store.listEvents(runId),
      transcripts: new Map(nodes.map((n) => [n.id, store.listTranscript(runId, n.id)])),
    };
  } finally {
    store.close();
  }
}

/** The run id `arbor run` printed on stderr. */
export function runIdOf(run: ArborRun): string {
  const id = /run (run_[a-z0-9]+)/.exec(run.stderr)?.[1];
  if (id === undefined) throw new Error(`no run id in:\n${run.stderr}`);
  return id;
}

/** Ids of the tool calls whose results a node's transcript recorded. */
export function recordedResults(entries: readonly TranscriptEntry[]): string[] {
  return entries.flatMap((e) =>
    e.op === 'append' && e.message.role === 'tool' ? [e.message.id] : [],
  );
}

/** The tool names a model request offered (`fs_list`, as the wire spells them). */
export function toolsOf(request: { body: unknown } | undefined): string[] {
  const body = request?.body as { tools?: { function: { name: string } }[] } | undefined;
  return (body?.tools ?? []).map((tool) => tool.function.name);
}
