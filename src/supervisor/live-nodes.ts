import type { ControlFrame } from '../protocol/index.js';
import type { RecordEvent } from './event-sink.js';
import type { LiveNode } from './node/live-node.js';
import { stopNodes } from './node/stop-nodes.js';
import type { Tree, TreeNode } from './tree.js';

/** How a subtree is stopped: at once (`force`: SIGKILL), and the status its nodes end with. */
export interface StopOptions {
  force: boolean;
  status?: 'cancelled' | 'deadline';
}

/**
 * The nodes of a run the supervisor has started: those still running, which frames can reach,
 * and every one started, running or ended, which `subagent.*` tools and status queries name.
 */
export class LiveNodes {
  readonly #running = new Map<string, LiveNode>();
  readonly #known = new Map<string, LiveNode>();
  readonly #tree: Tree;
  readonly #record: RecordEvent;

  constructor(tree: Tree, record: RecordEvent) {
    this.#tree = tree;
    this.#record = record;
  }

  /** A node whose child starts now. */
  started(live: LiveNode): void {
    this.#running.set(live.node.id, live);
    this.#known.set(live.node.id, live);
  }

  /** A node known to its parent's tools without a child of its own (a plan's node, a reused one). */
  register(live: LiveNode): void {
    this.#known.set(live.node.id, live);
  }

  /** A node that has ended: frames no longer reach it. */
  ended(live: LiveNode): void {
    this.#running.delete(live.node.id);
  }

  running(nodeId: string): LiveNode | undefined {
    return this.#running.get(nodeId);
  }

  /** The caller's children still running. */
  runningChildren(caller: LiveNode): LiveNode[] {
    return caller.node.children.flatMap((id) => this.#running.get(id) ?? []);
  }

  /** The caller's children, running or ended. */
  children(caller: LiveNode): LiveNode[] {
    return caller.node.children.flatMap((id) => this.#known.get(id) ?? []);
  }

  /** Sends a control frame to a running node; false when it has no live child. */
  send(nodeId: string, frame: ControlFrame): boolean {
    return this.#running.get(nodeId)?.runner?.send(frame) ?? false;
  }

  /** Sends a control frame to every running node; how many took it. */
  broadcast(frame: ControlFrame): LiveNode[] {
    return [...this.#running.values()].filter((live) => live.runner?.send(frame) === true);
  }

  /** Resolves once every node running now has ended. */
  async allEnded(): Promise<void> {
    await Promise.all([...this.#running.values()].map((live) => live.ended()));
  }

  /** Stops a node and its subtree, deepest first, and waits until they have ended. */
  async stopSubtree(root: TreeNode, reason: string, options: StopOptions): Promise<void> {
    const targets = this.#tree
      .deepestFirst(root.id)
      .flatMap((node) => this.#running.get(node.id) ?? []);
    await stopNodes(targets, reason, options, this.#record);
  }
}
