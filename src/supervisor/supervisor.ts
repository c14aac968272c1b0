/* eslint-disable max-lines -- 440 lines: the supervisor is being split into smaller files in the one-spine refactor; the limit applies again once it is. */
import {
  ArborError,
  intelSecrets,
  payloadSecrets,
  SecretScrubber,
  type ControlFrame,
  type IntelConfig,
  type SpawnPayload,
  type SwapPolicy,
  type TerminalStatus,
  type TranscriptMessage,
  type Usage,
} from '../protocol/index.js';
import type { SubagentRunArgs } from '../tools/index.js';
import type { ChildEnd } from './node/child-end.js';
import { eventSink, type EventSink } from './event-sink.js';
import { childTemplate, type ChildPlacement } from './spawn/child-template.js';
import type { HumanGates } from './gates/human-gates.js';
import { serveInternal, type SubagentApi } from './internal/index.js';
import { LiveNode, type NodeMode } from './node/live-node.js';
import { NodeLifecycle, type NodeEnvironment, type NodeOwner } from './node/node-lifecycle.js';
import { nodeRecord } from './node/node-record.js';
import { placeNode, type ProviderName } from './launch/providers.js';
import type { Admitted } from './spawn/spawn-chokepoint.js';
import type { SpawnDoor } from './spawn/spawn-door.js';
import { supervisorParts } from './supervisor-parts.js';
import { mintPayload } from './spawn/mint-payload.js';
import { stopNodes } from './node/stop-nodes.js';
import { resumeTemplate, type Reattach, type ResumedRun } from './resume/resumed-run.js';
import {
  adoptReturned,
  settleUnclaimed,
  standEnded,
  type ResumeHost,
} from './resume/resume-adoption.js';
import type { ToolGate } from './gates/tool-gate.js';
import { Tree, type TreeNode } from './tree.js';
import { subtreeUsage } from './usage-rollup.js';
import type { NodeResult, RootTemplate, SupervisorOptions } from './supervisor-options.js';
import type { Budget } from './budget/index.js';

/**
 * The supervisor owns the tree: it mints every node through one chokepoint, starts its child with
 * the node's provider, watches it, serves what it asks for, records everything, and tears it down
 * when it must. It never calls the model itself; in-process children do, in their own loop.
 */
export class Supervisor {
  readonly tree = new Tree();
  readonly #options: SupervisorOptions;
  readonly #now: () => number;
  /** Nodes still running. */
  readonly #live = new Map<string, LiveNode>();
  /** Every node started, running or ended, for status queries. */
  readonly #all = new Map<string, LiveNode>();
  readonly #door: SpawnDoor;
  readonly #humans: HumanGates;
  readonly #gate: ToolGate;
  readonly #environment: NodeEnvironment;
  readonly #budget: Budget;
  /** The records of the interrupted run this supervisor continues, if it does. */
  readonly #resumed: ResumedRun | undefined;
  #drained = false;
  /** The run's one secret scrubber: it learns each node's credentials as the node is minted. */
  readonly #scrub: SecretScrubber;
  /** Where the run's events go out: recorded (scrubbed) and reported, or streamed. */
  readonly #events: EventSink;

  constructor(options: SupervisorOptions) {
    this.#options = options;
    this.#now = options.now ?? (() => Date.now());
    this.#scrub = options.scrubber ?? new SecretScrubber();
    this.#events = eventSink({
      ...options,
      scrub: this.#scrub,
      now: this.#now,
      pathOf: (id) => this.tree.get(id)?.path,
    });
    const parts = supervisorParts(options, {
      tree: this.tree,
      now: this.#now,
      scrub: this.#scrub,
      record: this.#events.record,
      running: (caller) => caller.node.children.flatMap((id) => this.#live.get(id) ?? []),
      changed: (node) => this.#options.onEvent?.({ type: 'node', node }),
    });
    this.#budget = parts.budget;
    this.#resumed = parts.resumed;
    this.#humans = parts.humans;
    this.#gate = parts.gate;
    this.#door = parts.door;
    this.#environment = parts.environment;
  }

  /**
   * What each node's lifecycle reports up to, and asks of, this supervisor (see `NodeOwner`).
   * One object for the run; every method is for the node it is called with.
   */
  readonly #owner: NodeOwner = {
    record: (node, event) => {
      this.#events.record(node.id, event);
    },
    stream: (node, event) => {
      this.#events.stream(node.id, event);
    },
    emit: (event) => this.#options.onEvent?.(event),
    setStatus: (node, status) => {
      node.status = status;
      this.#options.onEvent?.({ type: 'node', node });
    },
    usage: (live, usage) => {
      this.#onUsage(live, usage);
    },
    ended: (live, end) => {
      this.#onEnded(live, end);
    },
    serveInternal: (live, frame) =>
      serveInternal(
        {
          subagents: this.#subagentApi(),
          store: this.#options.store,
          humans: this.#humans,
          now: this.#now,
        },
        live,
        frame,
      ),
    admitBudget: (live, frame) =>
      Promise.resolve(this.#budget.admit(live.node.id, frame.estimate, this.#now())),
  };

  /**
   * Runs the root agent to its end, then waits for detached descendants (others are stopped when
   * their parent ends). Rejects with `spawn_failed` if the root never starts, and with a `config`
   * error, before any child exists, if the root's grant breaks the trifecta rule.
   */
  async runRoot(template: RootTemplate): Promise<NodeResult> {
    const { node, payload } =
      this.#resumed === undefined ? this.#mintRoot(template) : this.#resumeRoot(template);
    const live = this.#start(node, payload, 'root', 'process', undefined, this.#resumed);
    try {
      const end = await live.ended();
      if (live.spawnError !== undefined) throw live.spawnError;
      await Promise.all([...this.#live.values()].map((other) => other.ended()));
      this.#settleUnclaimed();
      return { node, end };
    } finally {
      await this.#gate.close();
    }
  }

  /**
   * The root of an interrupted run, to be re-spawned from its transcript: its recorded node, the
   * payload minted again from `template` (fresh intelligence and credentials), its step limit
   * less the steps it made, and the whole recorded spend in the ledger so limits hold across the
   * crash.
   */
  #resumeRoot(template: RootTemplate): { node: TreeNode; payload: SpawnPayload } {
    const resumed = this.#resumed;
    const node = this.tree.nodes().find((n) => n.parentId === undefined);
    if (resumed === undefined || node === undefined) throw new Error('no recorded root to resume');
    const payload = mintPayload(
      this.#options.runId,
      node,
      resumeTemplate(template, node, resumed.transcript(node.id), resumed.answeredTurn(node.id)),
    );
    this.#openRoot(node, payload);
    for (const record of resumed.nodes) this.#budget.ledger.record(node.id, record.usage);
    return { node, payload };
  }

  /** Gates and nodes of the interrupted run that nothing took up again end here. */
  #settleUnclaimed(): void {
    this.#humans.settleCarried();
    settleUnclaimed(this.#resumeHost, this.#resumed);
  }

  /** What taking up the recorded children of an interrupted run needs from this supervisor. */
  readonly #resumeHost: ResumeHost = {
    tree: this.tree,
    readmit: (parent, args) => this.#door.readmit(parent, args),
    respawn: (parent, decision, reattach) => this.#startChild(parent, decision, [], {}, reattach),
    register: (child) => this.#all.set(child.node.id, child),
    end: (record, status, reason) => {
      this.#options.store.updateNode(this.#options.runId, record.id, {
        status,
        endedAt: this.#now(),
        error: reason,
      });
    },
    setStatus: (node, status) => {
      this.#owner.setStatus(node, status);
    },
    record: (nodeId, event) => {
      this.#events.record(nodeId, event);
    },
  };

  /** The run's secret scrubber, for what a host shows that did not come through the supervisor. */
  get scrubber(): SecretScrubber {
    return this.#scrub;
  }

  /** Sends a control frame to a live node; false when it has no live child. */
  send(nodeId: string, frame: ControlFrame): boolean {
    return this.#live.get(nodeId)?.runner?.send(frame) ?? false;
  }

  /**
   * Gives a warm node its next message, delivered as soon as its child can take it (one given
   * while the child starts or restarts waits for it); false once the node has ended.
   */
  inject(nodeId: string, message: string): boolean {
    return this.#live.get(nodeId)?.inject(message) ?? false;
  }

  /**
   * Closes a warm session: at once when its child runs (a turn in flight is cancelled: close once
   * every message is answered), else as soon as it can; false once it has ended.
   */
  closeSession(nodeId: string, reason: string): boolean {
    return this.#live.get(nodeId)?.closeSession(reason) ?? false;
  }

  /** Sends a control frame to every live node (pause, resume). */
  broadcast(frame: ControlFrame): number {
    let sent = 0;
    for (const live of this.#live.values()) if (live.runner?.send(frame) === true) sent += 1;
    return sent;
  }

  /** Hot-swaps the intelligence of every live node at its next turn boundary. */
  swapIntel(intelligence: IntelConfig, policy: SwapPolicy): void {
    this.#scrub.add(intelSecrets(intelligence));
    for (const live of this.#live.values()) {
      if (live.runner?.send({ type: 'swap_intel', intelligence, policy }) === true) {
        this.#events.record(live.node.id, {
          type: 'intel.swap',
          policy,
          endpoints: intelligence.endpoints.length,
        });
      }
    }
  }

  /** Stops every live node, deepest first; `force` goes straight to SIGKILL. */
  async stopAll(reason: string, options: { force?: boolean } = {}): Promise<void> {
    const root = this.tree.nodes()[0];
    if (root !== undefined) await this.#stopSubtree(root, reason, options.force === true);
  }

  /** The usage of a node and all its descendants. */
  subtreeUsage(nodeId: string): Usage {
    return subtreeUsage(this.tree, nodeId);
  }

  /**
   * Opens the node a plan run hangs its leaves under: it holds the run's grant and budget and has
   * no child of its own. Leaves are spawned from it with `spawnChild(plan, args, [], { mode:
   * 'plan' })`, through the same chokepoint as every other spawn; close it with `closePlan`.
   */
  openPlan(template: RootTemplate): LiveNode {
    const resuming = this.#resumed !== undefined;
    // A resumed plan's node is its recorded one: its leaves are matched to their records.
    const { node, payload } = resuming ? this.#resumeRoot(template) : this.#mintRoot(template);
    const live = new LiveNode(node, payload, 'plan', 'spawn');
    this.#scrub.add(payloadSecrets(payload));
    this.#all.set(node.id, live);
    if (resuming)
      this.#options.store.updateNode(this.#options.runId, node.id, { status: 'running' });
    else
      this.#options.store.createNode(
        nodeRecord(this.#options.runId, node, payload, 'plan', 'running', this.#scrub),
      );
    node.status = 'running';
    this.#options.onEvent?.({ type: 'node', node });
    return live;
  }

  /** Ends a plan's node with the plan's status, once its leaves have all ended. */
  async closePlan(plan: LiveNode, status: TerminalStatus): Promise<void> {
    await Promise.all([...this.#live.values()].map((other) => other.ended()));
    this.#settleUnclaimed();
    await this.#gate.close();
    this.#budget.close(plan.node.id);
    plan.node.status = status;
    plan.node.endedAt = this.#now();
    this.#options.store.updateNode(this.#options.runId, plan.node.id, {
      status,
      endedAt: plan.node.endedAt,
      subtreeUsage: subtreeUsage(this.tree, plan.node.id),
    });
    this.#options.onEvent?.({ type: 'node', node: plan.node });
  }

  /**
   * Mints a child of `caller` through the chokepoint and starts it. A spawn over the rate, or over
   * the caller's breadth while its other children run, waits in the queue first (recorded as
   * `spawn.waiting` and `spawn.waited` on the caller).
   */
  async spawnChild(
    caller: LiveNode,
    args: SubagentRunArgs,
    history: TranscriptMessage[] = [],
    placement: ChildPlacement = {},
  ): Promise<{ ok: true; child: LiveNode } | { ok: false; reason: string }> {
    // Recorded instructions are scrubbed: the new one is compared as it would be recorded.
    const reattach = this.#resumed?.claim(caller.node.id, this.#scrub.text(args.instruction));
    // Finished before the crash: its recorded result stands, and it is not run again.
    if (reattach?.kind === 'ended')
      return { ok: true, child: standEnded(this.#resumeHost, reattach, args.mode ?? 'sync') };
    if (reattach !== undefined) {
      // Re-spawned after a crash: it was admitted the first time, only its grant is minted again.
      const decision = this.#door.readmit(caller, args);
      if (!decision.ok) return decision;
      return { ok: true, child: this.#startChild(caller, decision, history, placement, reattach) };
    }
    return this.#door.admit(caller, args, (decision) =>
      this.#startChild(caller, decision, history, placement),
    );
  }

  #startChild(
    caller: LiveNode,
    decision: Admitted,
    history: TranscriptMessage[],
    placement: ChildPlacement,
    reattach?: Extract<Reattach, { kind: 'respawn' }>,
  ): LiveNode {
    const node =
      reattach === undefined
        ? this.tree.mintChild(
            caller.node.id,
            this.#scrub.text(decision.payload.instruction),
            this.#now(),
          )
        : this.tree.require(reattach.record.id);
    const template = childTemplate(
      decision,
      node,
      history,
      placement,
      reattach === undefined ? undefined : { run: this.#resumed, child: reattach },
    );
    this.#budget.open(node.id, caller.node.id, decision.grant);
    if (reattach !== undefined) {
      this.#budget.ledger.record(node.id, reattach.record.usage);
      this.#resumed?.recordGrant(reattach.record, template.caveats);
    }
    return this.#start(
      node,
      mintPayload(this.#options.runId, node, template),
      placement.mode ?? decision.mode,
      decision.provider.name,
      placement.cwd,
      reattach === undefined ? undefined : this.#resumed,
    );
  }

  /** The tree's root and its payload, its budget opened; a grant breaking the trifecta throws. */
  #mintRoot(template: RootTemplate): { node: TreeNode; payload: SpawnPayload } {
    const node = this.tree.mintRoot(this.#scrub.text(template.instruction), this.#now());
    const payload = mintPayload(this.#options.runId, node, template);
    this.#openRoot(node, payload);
    return { node, payload };
  }

  /** Opens the root's budget; throws when its grant breaks the trifecta rule. */
  #openRoot(node: TreeNode, payload: SpawnPayload): void {
    this.#budget.openRoot(node.id);
    const trifecta = this.#gate.checkTrifecta(payload);
    if (trifecta !== undefined) throw new ArborError('config', trifecta);
  }

  #start(
    node: TreeNode,
    payload: SpawnPayload,
    mode: NodeMode,
    provider: ProviderName,
    cwd?: string,
    resumed?: ResumedRun,
  ): LiveNode {
    const live = new LiveNode(node, payload, mode, placeNode(provider, cwd, this.#options));
    // Whatever the node's child may echo of its credentials is scrubbed from now on.
    this.#scrub.add(payloadSecrets(payload));
    live.cwd = cwd;
    live.resumed = resumed !== undefined;
    this.#live.set(node.id, live);
    this.#all.set(node.id, live);
    new NodeLifecycle(this.#environment, this.#owner, live).start();
    if (resumed !== undefined) adoptReturned(this.#resumeHost, live, resumed);
    return live;
  }

  #onEnded(live: LiveNode, end: ChildEnd): void {
    this.#budget.close(live.node.id);
    this.#options.store.updateNode(this.#options.runId, live.node.id, {
      subtreeUsage: subtreeUsage(this.tree, live.node.id),
    });
    live.stopped.abort('the node ended');
    this.#live.delete(live.node.id);
    live.markEnded(end);
    // Children are linked to their parent: when it ends, those not detached are stopped. A
    // parent's deadline is theirs too: they end `deadline`, not `cancelled`.
    const byDeadline = end.outcome.status === 'deadline';
    const why = byDeadline ? `the deadline of parent ${live.node.id} passed` : undefined;
    for (const id of live.node.children) {
      const child = this.#live.get(id);
      if (child !== undefined && child.mode !== 'detached')
        void this.#stopSubtree(child.node, why ?? `parent ${live.node.id} ended`, false, {
          status: byDeadline ? 'deadline' : 'cancelled',
        });
    }
  }

  /** Folds usage into the ledger; when the tree's ceiling is spent, everything below the root stops. */
  #onUsage(live: LiveNode, usage: Usage): void {
    this.#budget.record(live.node.id, usage, this.#now());
    const root = this.tree.nodes()[0];
    if (root === undefined || this.#drained || !this.#budget.ledger.isSpent(root.id)) return;
    this.#drained = true;
    const spent = this.#budget.ledger.subtree(root.id);
    this.#events.record(root.id, { type: 'budget.ceiling', tokens: spent.tokens, usd: spent.usd });
    // The root itself is refused at its next admission and ends exhausted; its subtree is drained.
    for (const id of root.children) {
      const child = this.#live.get(id);
      if (child !== undefined)
        void this.#stopSubtree(child.node, 'the tree budget is spent', false);
    }
  }

  #subagentApi(): SubagentApi {
    return {
      spawn: (caller, args, history) => this.spawnChild(caller, args, history),
      children: (caller) =>
        caller.node.children
          .map((id) => this.#all.get(id))
          .filter((n): n is LiveNode => n !== undefined),
      stopSubtree: (target, reason) => this.#stopSubtree(target.node, reason, false),
      inject: (target, message) => target.inject(message),
      subtreeUsage: (target) => subtreeUsage(this.tree, target.node.id),
    };
  }

  /** Stops a node and its subtree, deepest first, and waits until they have ended. */
  async #stopSubtree(
    root: TreeNode,
    reason: string,
    force: boolean,
    options: { status?: 'cancelled' | 'deadline' } = {},
  ): Promise<void> {
    const targets = this.tree.deepestFirst(root.id).flatMap((n) => this.#live.get(n.id) ?? []);
    await stopNodes(targets, reason, { force, ...options }, this.#events.record);
  }
}
