import {
  ArborError,
  outcomeOf,
  replayTranscript,
  type ReplayCall,
  type ReplayPayload,
  TrajectoryEventSchema,
  type ToolDef,
  type TrajectoryEvent,
} from '../protocol/index.js';
import { modelCallsOf } from '../store/index.js';
import type {
  ChildEnd,
  NodeRecord,
  ReplayedNode,
  ReplaySource,
  RunStore,
} from '../supervisor/index.js';

/** How a replay treats its nodes (see `arbor replay`). */
export interface ReplayMode {
  /** `recorded` (default): tool results come from the record; `live`: tools run again. */
  tools: 'recorded' | 'live';
  /** After a divergence a node goes on with its intelligence instead of failing. */
  continueLive: boolean;
  /** A fork: the node at `path` makes its model call `step` (from 1) and every later one live. */
  from?: { path: string; step: number };
}

type Store = Pick<RunStore, 'getRun' | 'listNodes' | 'listTranscript' | 'listEvents'>;

/**
 * The records of a run in a store, served to a replay of it node by node: each node's transcript
 * (reasoning kept), the model calls it made with the tools sets and system prompts they offered,
 * and, in the order they were spawned, its children, which a spawn of the replay claims by
 * instruction.
 */
export class StoreReplaySource implements ReplaySource {
  readonly #store: Store;
  readonly #runId: string;
  readonly #mode: ReplayMode;
  readonly #root: NodeRecord;
  /** Recorded children of each recorded node not claimed yet, in spawn order. */
  readonly #unclaimed = new Map<string, NodeRecord[]>();
  readonly #calls: Map<string, ReplayCall[]>;
  readonly #tools: Map<string, ToolDef[]>;
  readonly #systems: Map<string, string>;
  readonly recorded: readonly { id: string; path: string }[];
  /** Each node's last reported trajectory (what it had taken in). */
  readonly #trajectories = new Map<string, TrajectoryEvent>();
  /** The working directory the run was recorded in, when its meta says. */
  readonly #cwd: string | undefined;

  constructor(store: Store, runId: string, mode: ReplayMode) {
    this.#store = store;
    this.#runId = runId;
    this.#mode = mode;
    const nodes = store.listNodes(runId);
    const root = nodes.find((n) => n.parentId === undefined);
    if (root === undefined)
      throw new ArborError('config', `Run \`${runId}\` recorded no root node: nothing to replay.`);
    this.#root = root;
    const cwd = store.getRun(runId)?.meta.cwd;
    this.#cwd = typeof cwd === 'string' ? cwd : undefined;
    this.recorded = nodes.map(({ id, path }) => ({ id, path }));
    for (const node of [...nodes].sort((a, b) => a.createdAt - b.createdAt)) {
      if (node.parentId === undefined) continue;
      const siblings = this.#unclaimed.get(node.parentId) ?? [];
      siblings.push(node);
      this.#unclaimed.set(node.parentId, siblings);
    }
    const events = store.listEvents(runId);
    const { calls, tools, systems } = modelCallsOf(events);
    this.#tools = tools;
    this.#systems = systems;
    for (const event of events) {
      if (event.kind !== 'trajectory' || event.nodeId === undefined) continue;
      const read = TrajectoryEventSchema.safeParse(event.data);
      if (read.success) this.#trajectories.set(event.nodeId, read.data);
    }
    this.#calls = new Map(
      [...calls].map(([nodeId, list]) => [
        nodeId,
        list.map((call) => ({
          model: call.model,
          ...(call.tools_digest === undefined ? {} : { tools_digest: call.tools_digest }),
          ...(call.request_model === undefined ? {} : { request_model: call.request_model }),
          ...(call.sampling === undefined ? {} : { sampling: call.sampling }),
          ...(call.system_digest === undefined ? {} : { system_digest: call.system_digest }),
        })),
      ]),
    );
    if (mode.from !== undefined && !nodes.some((n) => n.path === mode.from?.path))
      throw new ArborError(
        'usage',
        `Run \`${runId}\` has no node \`${mode.from.path}\` to fork from (its nodes: ${nodes.map((n) => n.path).join(', ')}).`,
      );
  }

  /** The recorded root node. */
  get rootRecord(): NodeRecord {
    return this.#root;
  }

  root(): ReplayedNode {
    return this.#replayed(this.#root);
  }

  claim(parentId: string, instruction: string): ReplayedNode | undefined {
    const siblings = this.#unclaimed.get(parentId);
    const at = siblings?.findIndex((n) => n.instruction === instruction) ?? -1;
    const record = at < 0 ? undefined : siblings?.splice(at, 1)[0];
    return record === undefined ? undefined : this.#replayed(record);
  }

  #replayed(node: NodeRecord): ReplayedNode {
    const calls = this.#calls.get(node.id) ?? [];
    const tools: Record<string, ToolDef[]> = {};
    const systems: Record<string, string> = {};
    for (const call of calls) {
      const set = call.tools_digest === undefined ? undefined : this.#tools.get(call.tools_digest);
      if (set !== undefined && call.tools_digest !== undefined) tools[call.tools_digest] = set;
      const text =
        call.system_digest === undefined ? undefined : this.#systems.get(call.system_digest);
      if (text !== undefined && call.system_digest !== undefined)
        systems[call.system_digest] = text;
    }
    const { from } = this.#mode;
    const replay: ReplayPayload = {
      transcript: replayTranscript(this.#store.listTranscript(this.#runId, node.id)),
      calls,
      tools,
      systems,
      tool_results: this.#mode.tools,
      // A fork goes on live wherever its change reaches: every node may leave its record.
      continue_live: this.#mode.continueLive || from !== undefined,
      ...(from?.path === node.path ? { live_from: from.step } : {}),
      ...(this.#cwd === undefined ? {} : { cwd: this.#cwd }),
    };
    // A node on an A2A peer is the peer's run: under recorded tool results it is not contacted,
    // and the node stands with its recorded end.
    const stands = node.provider === 'a2a' && this.#mode.tools === 'recorded';
    const trajectory = this.#trajectories.get(node.id);
    return {
      id: node.id,
      path: node.path,
      replay,
      ...(stands ? { recordedEnd: recordedEnd(node) } : {}),
      ...(stands && trajectory !== undefined ? { trajectory } : {}),
    };
  }
}

/** How a recorded node ended, as a child's end. */
function recordedEnd(node: NodeRecord): ChildEnd {
  return {
    outcome: node.outcome ?? outcomeOf('failed', null, node.error ?? 'no outcome was recorded'),
    via: 'result',
    exit: { code: null, signal: null },
  };
}
