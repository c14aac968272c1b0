import type { IntelLimitsFrame, RunEventBody, Usage } from '../protocol/index.js';
import type { Budget } from './budget/index.js';
import type { EventSink } from './event-sink.js';
import type { HumanGates } from './gates/human-gates.js';
import {
  serveInternal,
  type InternalToolContext,
  type SubagentApi,
  type ToolAnswer,
} from './internal/index.js';
import type { LiveNodes } from './live-nodes.js';
import type { ChildEnd } from './node/child-end.js';
import type { LiveNode } from './node/live-node.js';
import type { BudgetAnswer, BudgetRequest, NodeOwner, ToolRequest } from './node/node-lifecycle.js';
import type { SupervisorEvent, SupervisorOptions } from './supervisor-options.js';
import type { Tree, TreeNode } from './tree.js';
import { subtreeUsage } from './usage-rollup.js';

/** What the reports of a run's nodes are folded into. */
export interface NodeReportsParts {
  options: SupervisorOptions;
  tree: Tree;
  nodes: LiveNodes;
  budget: Budget;
  events: EventSink;
  humans: HumanGates;
  subagents: SubagentApi;
  now: () => number;
}

/**
 * Where every node's lifecycle reports up to, and asks of, the run (the `NodeOwner` of all its
 * nodes): events, status and usage folded in one place, the end of a node stopping what hangs
 * on it, and the two requests that need an answer — an internal tool, a budget grant.
 */
export class NodeReports implements NodeOwner {
  readonly #parts: NodeReportsParts;
  /** What the internal tools are served with: the same for every node of the run. */
  readonly #internal: InternalToolContext;
  /** The tree's ceiling was spent and everything below the root has been told to stop. */
  #drained = false;

  constructor(parts: NodeReportsParts) {
    this.#parts = parts;
    const { subagents, options, humans, now } = parts;
    this.#internal = { subagents, store: options.store, humans, now };
  }

  record(node: TreeNode, event: RunEventBody): void {
    this.#parts.events.record(node.id, event);
  }

  stream(node: TreeNode, event: RunEventBody): void {
    this.#parts.events.stream(node.id, event);
  }

  emit(event: SupervisorEvent): void {
    this.#parts.options.onEvent?.(event);
  }

  setStatus(node: TreeNode, status: TreeNode['status']): void {
    node.status = status;
    this.#parts.options.onEvent?.({ type: 'node', node });
  }

  /** Folds usage into the ledger; when the tree's ceiling is spent, everything below the root stops. */
  usage(live: LiveNode, usage: Usage): void {
    const { budget, tree, events, nodes } = this.#parts;
    budget.record(live.node.id, usage, this.#parts.now());
    const root = tree.nodes()[0];
    if (root === undefined || this.#drained || !budget.ledger.isSpent(root.id)) return;
    this.#drained = true;
    const spent = budget.ledger.subtree(root.id);
    events.record(root.id, { type: 'budget.ceiling', tokens: spent.tokens, usd: spent.usd });
    // The root itself is refused at its next admission and ends exhausted; its subtree is drained.
    for (const id of root.children) {
      const child = nodes.running(id);
      if (child !== undefined)
        void nodes.stopSubtree(child.node, 'the tree budget is spent', { force: false });
    }
  }

  /**
   * A node has ended, whatever ended it: its budget closes, its subtree's usage is recorded, and
   * its children not detached are stopped (a parent's deadline is theirs too: they end
   * `deadline`, not `cancelled`).
   */
  ended(live: LiveNode, end: ChildEnd): void {
    const { budget, options, tree, nodes } = this.#parts;
    budget.close(live.node.id);
    this.#endRateWait(live.node);
    options.store.updateNode(options.runId, live.node.id, {
      subtreeUsage: subtreeUsage(tree, live.node.id),
    });
    live.stopped.abort('the node ended');
    nodes.ended(live);
    live.markEnded(end);
    const byDeadline = end.outcome.status === 'deadline';
    const why = byDeadline
      ? `the deadline of parent ${live.node.id} passed`
      : `parent ${live.node.id} ended`;
    for (const child of nodes.runningChildren(live))
      if (child.mode !== 'detached')
        void nodes.stopSubtree(child.node, why, {
          force: false,
          status: byDeadline ? 'deadline' : 'cancelled',
        });
  }

  serveInternal(live: LiveNode, frame: ToolRequest): Promise<ToolAnswer> {
    return serveInternal(this.#internal, live, frame);
  }

  /**
   * Answers a budget request. A wait for the provider's rate limit shows on the node (the live
   * tree) while it lasts, and is recorded as `intel.rate_wait` once the call is answered otherwise.
   */
  admitBudget(live: LiveNode, frame: BudgetRequest): Promise<BudgetAnswer> {
    const now = this.#parts.now();
    const { providerWait, ...answer } = this.#parts.budget.admit(
      live.node.id,
      frame.estimate,
      now,
      frame.endpoint,
    );
    const { node } = live;
    // The live tree reads `rateWait` at its next draw; a `node` report would be a status event.
    if (providerWait === undefined) this.#endRateWait(node);
    else node.rateWait = { ...providerWait, since: node.rateWait?.since ?? now };
    return Promise.resolve(answer);
  }

  rateLimits(live: LiveNode, frame: IntelLimitsFrame): void {
    this.#parts.budget.noteProviderLimits(live.node.id, frame, this.#parts.now());
  }

  /** The node's wait for a provider's rate limit is over: recorded, and gone from the tree. */
  #endRateWait(node: TreeNode): void {
    const wait = node.rateWait;
    if (wait === undefined) return;
    delete node.rateWait;
    this.#parts.events.record(node.id, {
      type: 'intel.rate_wait',
      endpoint: wait.endpoint,
      limit: wait.limit,
      waitedMs: this.#parts.now() - wait.since,
    });
  }
}
