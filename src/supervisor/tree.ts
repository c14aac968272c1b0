import type { RateLimitName, TrajectoryEvent, Usage } from '../protocol/index.js';
import type { NodeRecord, NodeStatus } from '../store/store-port.js';

/** One node of the live tree, as the supervisor and the display see it. */
export interface TreeNode {
  id: string;
  parentId: string | undefined;
  /** `0`, `0.2`, `0.2.1`: the root is `0`, children are numbered from 1 in spawn order. */
  path: string;
  depth: number;
  instruction: string;
  status: NodeStatus;
  children: string[];
  createdAt: number;
  endedAt: number | undefined;
  /** Model calls made so far. */
  steps: number;
  /** The node's own usage. */
  usage: Usage;
  /**
   * What the node has done, as the runtime trifecta sees it: exposed, sensitive, risk score. The
   * latest its child reported; absent until it reports.
   */
  trajectory?: TrajectoryEvent;
  /**
   * Tool calls arbor refused this node (a caveat, a policy, its call limit), as its child reported
   * them; absent: none.
   */
  refusedCalls?: number;
  /** Spawns of this node waiting in the queue (for the spawn rate or its breadth); absent: none. */
  waitingSpawns?: number;
  /**
   * The node's next model call waits for its provider's rate limit (which limit, of which
   * endpoint, since when); absent: it does not.
   */
  rateWait?: { endpoint: number; limit: RateLimitName; since: number };
}

/**
 * The tree of a run: ids, paths and depths are minted here, by the supervisor, from the parent's
 * record — never taken from what a child claims.
 */
export class Tree {
  readonly #nodes = new Map<string, TreeNode>();
  /** The highest child number each path's recorded children had (a replay: see `reserve`). */
  readonly #reserved = new Map<string, number>();
  #next = 0;

  get size(): number {
    return this.#nodes.size;
  }

  /** Mints the root; a replay passes the recorded root's id (see `mintChild`). */
  mintRoot(instruction: string, now: number, id?: string): TreeNode {
    if (this.#nodes.size > 0) throw new Error('the tree already has a root');
    return this.#add(undefined, '0', 0, instruction, now, id);
  }

  /**
   * Mints a child of `parentId`, numbered after its siblings. A replay passes the recorded node it
   * stands for: the child takes that node's id and path (which no other node of the tree has, as
   * `reserve` set the numbering past every recorded one), so handles and paths match the record.
   */
  mintChild(
    parentId: string,
    instruction: string,
    now: number,
    recorded?: { id: string; path: string },
  ): TreeNode {
    const parent = this.require(parentId);
    const taken = parent.children.map((id) => childIndex(this.require(id)));
    const next = Math.max(parent.children.length, ...taken, this.#reserved.get(parent.path) ?? 0);
    const node = this.#add(
      parent.id,
      recorded?.path ?? `${parent.path}.${next + 1}`,
      parent.depth + 1,
      instruction,
      now,
      recorded?.id,
    );
    parent.children.push(node.id);
    return node;
  }

  /**
   * Keeps the ids and paths of a recorded run free (a replay): new ids are minted after its
   * highest, and each parent's new children are numbered after its recorded ones.
   */
  reserve(records: readonly { id: string; path: string }[]): void {
    for (const record of records) {
      const n = Number(record.id.slice(1));
      if (Number.isInteger(n)) this.#next = Math.max(this.#next, n + 1);
      const cut = record.path.lastIndexOf('.');
      if (cut < 0) continue;
      const parent = record.path.slice(0, cut);
      const index = Number(record.path.slice(cut + 1));
      this.#reserved.set(parent, Math.max(this.#reserved.get(parent) ?? 0, index));
    }
  }

  /**
   * Rebuilds the tree of an interrupted run from its records, with the ids and paths it had, so
   * new children are numbered after the old ones. `steps` gives each node's model calls so far.
   */
  restore(records: readonly NodeRecord[], steps: (nodeId: string) => number): void {
    if (this.#nodes.size > 0) throw new Error('the tree already has nodes');
    const byDepth = [...records].sort((a, b) => a.depth - b.depth || a.createdAt - b.createdAt);
    for (const record of byDepth) {
      const node: TreeNode = {
        id: record.id,
        parentId: record.parentId,
        path: record.path,
        depth: record.depth,
        instruction: record.instruction,
        status: record.status,
        children: [],
        createdAt: record.createdAt,
        endedAt: record.endedAt,
        steps: steps(record.id),
        usage: record.usage,
      };
      this.#nodes.set(node.id, node);
      if (record.parentId !== undefined) this.require(record.parentId).children.push(node.id);
      const n = Number(record.id.slice(1));
      if (Number.isInteger(n)) this.#next = Math.max(this.#next, n + 1);
    }
    for (const node of this.#nodes.values())
      node.children.sort((a, b) => childIndex(this.require(a)) - childIndex(this.require(b)));
  }

  get(id: string): TreeNode | undefined {
    return this.#nodes.get(id);
  }

  require(id: string): TreeNode {
    const node = this.#nodes.get(id);
    if (node === undefined) throw new Error(`no node \`${id}\` in the tree`);
    return node;
  }

  nodes(): TreeNode[] {
    return [...this.#nodes.values()];
  }

  /** A node and all its descendants, deepest first (the order to cancel them in). */
  deepestFirst(id: string): TreeNode[] {
    const out: TreeNode[] = [];
    const visit = (node: TreeNode): void => {
      for (const child of node.children) visit(this.require(child));
      out.push(node);
    };
    visit(this.require(id));
    return out.sort((a, b) => b.depth - a.depth);
  }

  #add(
    parentId: string | undefined,
    path: string,
    depth: number,
    instruction: string,
    now: number,
    id?: string,
  ): TreeNode {
    const node: TreeNode = {
      id: id ?? `n${this.#next++}`,
      parentId,
      path,
      depth,
      instruction,
      status: 'pending',
      children: [],
      createdAt: now,
      endedAt: undefined,
      steps: 0,
      usage: { input_tokens: 0, output_tokens: 0 },
    };
    this.#nodes.set(node.id, node);
    return node;
  }
}

/** A node's number among its siblings: the last part of its path. */
function childIndex(node: TreeNode): number {
  return Number(node.path.slice(node.path.lastIndexOf('.') + 1));
}
