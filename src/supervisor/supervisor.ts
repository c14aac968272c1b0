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
import { eventSink, type EventSink } from './event-sink.js';
import type { ChildPlacement } from './spawn/child-template.js';
import type { HumanGates } from './gates/human-gates.js';
import { LiveNode } from './node/live-node.js';
import { nodeRecord } from './node/node-record.js';
import { isPriceTableLoaded, loadPriceTable } from './pricing/index.js';
import type { SpawnDoor } from './spawn/spawn-door.js';
import { supervisorParts } from './supervisor-parts.js';
import { mintPayload } from './spawn/mint-payload.js';
import { resumeTemplate, type ResumedRun } from './resume/resumed-run.js';
import { settleUnclaimed, standEnded } from './resume/resume-adoption.js';
import type { EgressHost } from './launch/egress-host.js';
import type { ToolGate } from './gates/tool-gate.js';
import { LiveNodes } from './live-nodes.js';
import { NodeReports } from './node-reports.js';
import { NodeStarter } from './node-starter.js';
import { Subagents } from './subagents.js';
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
  /** The nodes started: those still running, and every one for status queries. */
  readonly #nodes: LiveNodes;
  readonly #door: SpawnDoor;
  readonly #humans: HumanGates;
  readonly #gate: ToolGate;
  /** The run's egress proxy: stopped when the run ends. */
  readonly #egress: EgressHost;
  readonly #budget: Budget;
  /** Where every node's lifecycle reports up to. */
  readonly #reports: NodeReports;
  /** Starts admitted nodes, fresh or taken up from an interrupted run's records. */
  readonly #starter: NodeStarter;
  /** The records of the interrupted run this supervisor continues, if it does. */
  readonly #resumed: ResumedRun | undefined;
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
    this.#nodes = new LiveNodes(this.tree, this.#events.record);
    if (options.replay !== undefined) this.tree.reserve(options.replay.recorded);
    const parts = supervisorParts(options, {
      tree: this.tree,
      now: this.#now,
      scrub: this.#scrub,
      record: this.#events.record,
      nodes: this.#nodes,
      changed: (node) => this.#options.onEvent?.({ type: 'node', node }),
    });
    this.#budget = parts.budget;
    this.#resumed = parts.resumed;
    this.#humans = parts.humans;
    this.#gate = parts.gate;
    this.#door = parts.door;
    this.#egress = parts.environment.egress;
    this.#reports = new NodeReports({
      options,
      tree: this.tree,
      nodes: this.#nodes,
      budget: this.#budget,
      events: this.#events,
      humans: this.#humans,
      subagents: new Subagents(
        (caller, args, history) => this.spawnChild(caller, args, history),
        this.#nodes,
        this.tree,
      ),
      now: this.#now,
    });
    this.#starter = new NodeStarter({
      options,
      tree: this.tree,
      nodes: this.#nodes,
      door: this.#door,
      budget: this.#budget,
      events: this.#events,
      reports: this.#reports,
      environment: parts.environment,
      scrub: this.#scrub,
      resumed: this.#resumed,
      now: this.#now,
    });
  }

  /**
   * Runs the root agent to its end, then waits for detached descendants (others are stopped when
   * their parent ends). Rejects with `spawn_failed` if the root never starts, and with a `config`
   * error, before any child exists, if the root's grant breaks the trifecta rule.
   */
  async runRoot(template: RootTemplate): Promise<NodeResult> {
    const { node, payload } =
      this.#resumed === undefined ? this.#mintRoot(template) : this.#resumeRoot(template);
    // Usage frames are priced as they arrive, from the first node's first model call on. A runtime
    // opened by `openRuntime` has the table loaded already, so the root starts in this same tick
    // (a warm session's first message may be injected the moment `runRoot` is called).
    if (!isPriceTableLoaded()) await loadPriceTable();
    const live = this.#starter.start(node, payload, 'root', 'process', undefined, this.#resumed);
    try {
      const end = await live.ended();
      if (live.spawnError !== undefined) throw live.spawnError;
      await this.#nodes.allEnded();
      this.#settleUnclaimed();
      return { node, end };
    } finally {
      await Promise.all([this.#gate.close(), this.#egress.shutdown()]);
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
    settleUnclaimed(this.#starter, this.#resumed);
  }

  /** The run's secret scrubber, for what a host shows that did not come through the supervisor. */
  get scrubber(): SecretScrubber {
    return this.#scrub;
  }

  /** Sends a control frame to a live node; false when it has no live child. */
  send(nodeId: string, frame: ControlFrame): boolean {
    return this.#nodes.send(nodeId, frame);
  }

  /**
   * Gives a warm node its next message, delivered as soon as its child can take it (one given
   * while the child starts or restarts waits for it); false once the node has ended.
   */
  inject(nodeId: string, message: string): boolean {
    return this.#nodes.running(nodeId)?.inject(message) ?? false;
  }

  /**
   * Closes a warm session: at once when its child runs (a turn in flight is cancelled: close once
   * every message is answered), else as soon as it can; false once it has ended.
   */
  closeSession(nodeId: string, reason: string): boolean {
    return this.#nodes.running(nodeId)?.closeSession(reason) ?? false;
  }

  /** Sends a control frame to every live node (pause, resume). */
  broadcast(frame: ControlFrame): number {
    return this.#nodes.broadcast(frame).length;
  }

  /** Hot-swaps the intelligence of every live node at its next turn boundary. */
  swapIntel(intelligence: IntelConfig, policy: SwapPolicy): void {
    this.#scrub.add(intelSecrets(intelligence));
    const swapped = this.#nodes.broadcast({ type: 'swap_intel', intelligence, policy });
    for (const live of swapped)
      this.#events.record(live.node.id, {
        type: 'intel.swap',
        policy,
        endpoints: intelligence.endpoints.length,
      });
  }

  /** Stops every live node, deepest first; `force` goes straight to SIGKILL. */
  async stopAll(reason: string, options: { force?: boolean } = {}): Promise<void> {
    const root = this.tree.nodes()[0];
    if (root !== undefined)
      await this.#nodes.stopSubtree(root, reason, { force: options.force === true });
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
    this.#nodes.register(live);
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
    await this.#nodes.allEnded();
    this.#settleUnclaimed();
    await Promise.all([this.#gate.close(), this.#egress.shutdown()]);
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
      return { ok: true, child: standEnded(this.#starter, reattach, args.mode ?? 'sync') };
    if (reattach !== undefined) {
      // Re-spawned after a crash: it was admitted the first time, only its grant is minted again.
      const decision = this.#door.readmit(caller, args);
      if (!decision.ok) return decision;
      return {
        ok: true,
        child: this.#starter.startChild(caller, decision, history, placement, reattach),
      };
    }
    return this.#door.admit(caller, args, (decision) =>
      this.#starter.startChild(caller, decision, history, placement),
    );
  }

  /** The tree's root and its payload, its budget opened; a grant breaking the trifecta throws. */
  #mintRoot(template: RootTemplate): { node: TreeNode; payload: SpawnPayload } {
    const replayed = this.#options.replay?.root();
    const node = this.tree.mintRoot(
      this.#scrub.text(template.instruction),
      this.#now(),
      replayed?.id,
    );
    const minted = mintPayload(this.#options.runId, node, template);
    const payload = replayed === undefined ? minted : { ...minted, replay: replayed.replay };
    this.#openRoot(node, payload);
    return { node, payload };
  }

  /** Opens the root's budget; throws when its grant breaks the trifecta rule. */
  #openRoot(node: TreeNode, payload: SpawnPayload): void {
    this.#budget.openRoot(node.id);
    const trifecta = this.#gate.checkTrifecta(payload);
    if (trifecta !== undefined) throw new ArborError('config', trifecta);
  }
}
