import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parsePlanToml, type Plan } from '../../src/plan/index.js';
import { SqliteStore } from '../../src/store/index.js';
import type { EventRecord, NodeRecord } from '../../src/supervisor/index.js';
import type { PlaybookInput } from '../../src/testing/fake-llm/index.js';
import { FAST_ENV } from './arbor-process.js';
import { fakeLlm } from './fake-llm.js';
import { runArbor, type ArborRun } from './run-arbor.js';

/** `arbor plan run --json`'s report. */
export interface PlanReport {
  run_id: string;
  run_log: string;
  usage: { input_tokens: number; output_tokens: number };
  summary: Record<string, number>;
  leaves: {
    id: string;
    status: string;
    result?: string;
    artifact_ref?: { branch?: string; commit?: string };
    refused_calls?: number;
    node_id?: string;
    usage?: { input_tokens: number; output_tokens: number };
  }[];
  merge?: {
    branch: string;
    commit: string;
    merged: string[];
    conflicts: { leaf: string; files: string[] }[];
  };
}

/** A working directory holding `plan.toml`, with its own store and fake LLM. */
export interface PlanDir {
  dir: string;
  db: string;
  llm: Awaited<ReturnType<typeof fakeLlm>>;
  /** Runs `arbor plan <sub> <file> --json …` in the directory against the fake LLM. */
  arbor(
    sub: 'run' | 'resume',
    file: string,
    args?: string[],
    env?: NodeJS.ProcessEnv,
  ): Promise<ArborRun & { report: PlanReport | undefined }>;
  /** Runs `arbor plan resume <file> --json …` with no `--intel` or `--model`: the recorded ones. */
  resumeRecorded(file: string, args?: string[]): Promise<ArborRun>;
  readLog(): Promise<Plan>;
}

export async function planDir(
  planToml: string,
  playbook: PlaybookInput,
  dir?: string,
): Promise<PlanDir> {
  const cwd = dir ?? (await mkdtemp(join(tmpdir(), 'arbor-plan-')));
  await writeFile(join(cwd, 'plan.toml'), planToml);
  const llm = await fakeLlm(playbook);
  const db = join(cwd, '.arbor-test.db');
  return {
    dir: cwd,
    db,
    llm,
    arbor: async (sub, file, args = [], env = {}) => {
      const result = await runArbor(
        ['plan', sub, file, '--intel', llm.url, '--model', 'm', '--json', ...args],
        { cwd, env: { ...FAST_ENV, ARBOR_DB: db, ...env } },
      );
      return {
        ...result,
        report: result.stdout === '' ? undefined : (JSON.parse(result.stdout) as PlanReport),
      };
    },
    resumeRecorded: (file, args = []) =>
      runArbor(['plan', 'resume', file, '--json', ...args], {
        cwd,
        env: { ...FAST_ENV, ARBOR_DB: db },
      }),
    readLog: async () => parsePlanToml(await readFile(join(cwd, 'plan.run.toml'), 'utf8')),
  };
}

/** The run's events and nodes, read back from its store. */
export function runRecord(
  db: string,
  runId: string,
): { events: EventRecord[]; nodes: NodeRecord[] } {
  const store = new SqliteStore(db);
  try {
    return { events: store.listEvents(runId), nodes: store.listNodes(runId) };
  } finally {
    store.close();
  }
}

/** Sequence number of the first event of `kind` on the node whose instruction contains `text`. */
export function eventSeq(
  record: { events: EventRecord[]; nodes: NodeRecord[] },
  text: string,
  kind: string,
): number {
  const node = record.nodes.find((n) => n.instruction.includes(text));
  const event = record.events.find((e) => e.nodeId === node?.id && e.kind === kind);
  if (event === undefined) throw new Error(`no ${kind} event for the node of "${text}"`);
  return event.seq;
}

/** A script answering the leaf whose instruction contains `text`. */
export function leafScript(text: string, ...steps: Record<string, unknown>[]) {
  return { match: { contains: text }, steps };
}

/** The tool results a leaf's requests carried, as text. */
export function toolResultsOf(llm: PlanDir['llm'], text: string): string[] {
  return llm.requests
    .map((r) => r.body as { messages: { role: string; content: unknown }[] })
    .filter((body) =>
      body.messages.some(
        (m) => m.role === 'user' && typeof m.content === 'string' && m.content.includes(text),
      ),
    )
    .flatMap((body) =>
      body.messages.filter((m) => m.role === 'tool').map((m) => String(m.content)),
    );
}
