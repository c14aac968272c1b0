import type { TranscriptMessage, Usage } from '../protocol/index.js';
import type { SubagentRunArgs } from '../tools/index.js';
import type { SubagentApi } from './internal/index.js';
import type { LiveNodes } from './live-nodes.js';
import type { LiveNode } from './node/live-node.js';
import type { Tree } from './tree.js';
import { subtreeUsage } from './usage-rollup.js';

/** Spawns a child of `caller` through the chokepoint (the supervisor's `spawnChild`). */
export type SpawnChild = (
  caller: LiveNode,
  args: SubagentRunArgs,
  history: TranscriptMessage[],
) => Promise<{ ok: true; child: LiveNode } | { ok: false; reason: string }>;

/** What a node's `subagent.*` tools reach: its own children, through the run's nodes. */
export class Subagents implements SubagentApi {
  readonly #spawn: SpawnChild;
  readonly #nodes: LiveNodes;
  readonly #tree: Tree;

  constructor(spawn: SpawnChild, nodes: LiveNodes, tree: Tree) {
    this.#spawn = spawn;
    this.#nodes = nodes;
    this.#tree = tree;
  }

  spawn(
    caller: LiveNode,
    args: SubagentRunArgs,
    history: TranscriptMessage[],
  ): Promise<{ ok: true; child: LiveNode } | { ok: false; reason: string }> {
    return this.#spawn(caller, args, history);
  }

  children(caller: LiveNode): LiveNode[] {
    return this.#nodes.children(caller);
  }

  stopSubtree(target: LiveNode, reason: string): Promise<void> {
    return this.#nodes.stopSubtree(target.node, reason, { force: false });
  }

  inject(target: LiveNode, message: string): boolean {
    return target.inject(message);
  }

  subtreeUsage(target: LiveNode): Usage {
    return subtreeUsage(this.#tree, target.node.id);
  }
}
