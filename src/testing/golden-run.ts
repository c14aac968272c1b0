import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Arbor } from '../api/arbor.js';
import type { ReplayOptions } from '../api/options.js';
import { shownTranscript, type TerminalStatus, type Usage } from '../protocol/index.js';
import {
  comparePaths,
  replayDivergences,
  replayNotes,
  type ReplayDivergence,
} from '../replay/index.js';
import { withStore } from '../store/index.js';
import type { HostTool } from '../tools/index.js';

/** Where a golden run is replayed, and with what. */
export interface GoldenRunOptions {
  /**
   * The store: the one holding the recorded run when `recorded` is a run id; for a run file, where
   * the replay is recorded (default: a fresh store in a temporary directory).
   */
  store?: string;
  /** The working directory of the replay (default: a fresh temporary directory). */
  cwd?: string;
  /** Host tools the recorded run used (`defineTool`), offered again with the same definitions. */
  tools?: readonly HostTool[];
  /** `recorded` (default) or `live`, and a grant to narrow to: see `ReplayOptions`. */
  replay?: Pick<ReplayOptions, 'tools' | 'grant'>;
  env?: NodeJS.ProcessEnv;
}

/** A node of a golden run as a test asserts on it. */
export interface GoldenNode {
  path: string;
  status: string;
  instruction: string;
  /** The tools its answers called, in order (`subagent.run`, `fs.read`, …). */
  tools: string[];
}

/** A call arbor refused a node: its grant (or a policy, or a limit) did not allow it. */
export interface RefusedCall {
  run: 'recorded' | 'replay';
  path: string;
  what: string;
}

/** A recorded run replayed from its records, with what a test asserts on. */
export interface GoldenRun {
  /** The recorded run, and the replay's run (in `store`). */
  recordedRunId: string;
  runId: string;
  store: string;
  status: TerminalStatus;
  /** The root's answer as text. */
  answer: string;
  /** The replay's nodes, in path order. */
  nodes: GoldenNode[];
  /** Where the replay's requests differed from the record; empty when it replayed as recorded. */
  divergences: ReplayDivergence[];
  /** What the recorded run spent, its whole tree (the replay spends nothing). */
  recordedUsage: Usage;
  /** Calls arbor refused in the recorded run or in the replay (empty: no grant was exceeded). */
  refused: RefusedCall[];
  /** Checks the record could not support (an older recording), and a differing arbor version. */
  notes: string[];
  /** The node paths, in order: the tree's shape. */
  paths(): string[];
  /** The tools a node called, in order (empty for a path the tree does not have). */
  toolsOf(path: string): string[];
}

/** A replay never calls a model unless it goes live: this address answers nothing. */
const NO_ENDPOINT = 'http://127.0.0.1:9/replay-calls-no-endpoint';

/**
 * Replays a recorded run — a run file (`arbor runs export`) or a run id of `options.store` — in
 * this process, with no model and (by default) no tool run, and returns what a test asserts on:
 * the tree's shape, each node's tool sequence, the recorded cost, refused calls, the answer and
 * the divergences. A golden run is a recorded run checked in beside the tests: when a change to
 * prompts, tools, policy or grants makes a node ask for something else, its divergence says where.
 */
export async function replayGolden(
  recorded: string,
  options: GoldenRunOptions = {},
): Promise<GoldenRun> {
  const cwd = options.cwd ?? mkdtempSync(path.join(tmpdir(), 'arbor-golden-'));
  const store = options.store ?? path.join(cwd, 'golden.db');
  const arbor = await Arbor.open({
    store,
    cwd,
    intelligence: { endpoints: [NO_ENDPOINT], model: 'replay' },
    ...(options.tools === undefined ? {} : { tools: [...options.tools] }),
    ...(options.env === undefined ? {} : { env: options.env }),
  });
  let result;
  try {
    result = await arbor.replay(recorded, {
      ...options.replay,
    }).result;
  } finally {
    await arbor.close();
  }
  const runId = result.runId;
  return withStore(store, (db) => {
    const replayRun = db.getRun(runId);
    const of = replayRun?.meta.replay_of;
    const source = typeof of === 'string' ? of : '';
    const nodes = db
      .listNodes(runId)
      .sort((a, b) => comparePaths(a.path, b.path))
      .map((node) => ({
        path: node.path,
        status: node.status,
        instruction: node.instruction,
        tools: shownTranscript(db.listTranscript(runId, node.id)).flatMap((m) =>
          m.role === 'assistant' ? m.tool_calls.map((c) => c.name) : [],
        ),
      }));
    const root = db.listNodes(source).find((n) => n.parentId === undefined);
    const refused = [...refusedIn(db, source, 'recorded'), ...refusedIn(db, runId, 'replay')];
    return {
      recordedRunId: source,
      runId,
      store,
      status: result.status,
      answer: result.text,
      nodes,
      divergences: replayDivergences(db, runId),
      recordedUsage: root?.subtreeUsage ?? root?.usage ?? { input_tokens: 0, output_tokens: 0 },
      refused,
      notes: replayNotes(db, source),
      paths: () => nodes.map((n) => n.path),
      toolsOf: (at: string) => nodes.find((n) => n.path === at)?.tools ?? [],
    };
  });
}

function refusedIn(
  db: Parameters<Parameters<typeof withStore>[1]>[0],
  runId: string,
  run: RefusedCall['run'],
): RefusedCall[] {
  const paths = new Map(db.listNodes(runId).map((n) => [n.id, n.path]));
  return db.listEvents(runId).flatMap((event) => {
    const where = paths.get(event.nodeId ?? '') ?? '?';
    if (event.kind === 'tool.result' && event.data.refused === true)
      return [{ run, path: where, what: `tool ${String(event.data.name)}` }];
    if (event.kind === 'spawn.refused')
      return [{ run, path: where, what: `spawn: ${String(event.data.reason)}` }];
    return [];
  });
}
