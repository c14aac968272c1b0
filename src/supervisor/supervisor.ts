import {
  redactPayload,
  SpawnPayloadSchema,
  type AgentFrame,
  type ControlFrame,
  type IntelConfig,
  type Outcome,
  type SpawnPayload,
  type SpawnPayloadInput,
  type SwapPolicy,
  type TranscriptMessage,
  type Usage,
} from '../protocol/index.js';
import type { SubagentRunArgs } from '../tools/index.js';
import type { ChildEnd } from './child-end.js';
import { childCommand, childEnv } from './child-entry.js';
import type { ChildPool } from './child-pool.js';
import { failResponder, HumanGates, type HumanResponder } from './human-gates.js';
import { serveInternal, type SubagentApi } from './internal/index.js';
import { LiveNode, type NodeMode } from './live-node.js';
import { NodeRunner } from './node-runner.js';
import { PROVIDERS, type ProviderName } from './providers.js';
import {
  admitSpawn,
  DEFAULT_SPAWN_LIMITS,
  type ChokepointContext,
  type SpawnLimits,
} from './spawn-chokepoint.js';
import { SpawnRate } from './spawn-rate.js';
import type { RunStore } from './store-port.js';
import type { Timing } from './timing.js';
import { Tree, type TreeNode } from './tree.js';
import { subtreeUsage } from './usage-rollup.js';
import { addUsage } from '../loop/index.js';

/** What the supervisor tells its observers (the live display, NDJSON event output). */
export type SupervisorEvent =
  | { type: 'node'; node: TreeNode }
  | { type: 'event'; nodeId: string; kind: string; fields: Record<string, unknown> }
  | { type: 'usage'; nodeId: string; usage: Usage }
  | { type: 'turn'; nodeId: string; outcome: Outcome };

export interface SupervisorOptions {
  runId: string;
  store: RunStore;
  timing: Timing;
  /** The supervisor's environment; children get an allow-listed, secret-free subset. */
  env: NodeJS.ProcessEnv;
  cwd?: string;
  /** Idle children started ahead of time, taken instead of starting a new process. */
  pool?: ChildPool;
  limits?: SpawnLimits;
  /** Spawn rate: at most `count` spawns per `perMs` across the run. */
  rate?: { count: number; perMs: number };
  /** Who answers `ask_human` and policy `ask` gates (default: nobody, the ask fails). */
  humans?: HumanResponder;
  /** Extra checks of a child's grant at the chokepoint (trifecta, policy); a string refuses. */
  checkGrant?: ChokepointContext['checkGrant'];
  onEvent?(event: SupervisorEvent): void;
  now?: () => number;
}

/** The root payload, as the CLI builds it; the supervisor mints depth and telemetry. */
export type RootTemplate = Omit<SpawnPayloadInput, 'telemetry' | 'depth'> & {
  telemetry?: Partial<SpawnPayload['telemetry']>;
};

export interface NodeResult {
  node: TreeNode;
  end: ChildEnd;
}

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
  readonly #rate: SpawnRate;
  readonly #limits: SpawnLimits;
  readonly #humans: HumanGates;

  constructor(options: SupervisorOptions) {
    this.#options = options;
    this.#now = options.now ?? (() => Date.now());
    this.#limits = options.limits ?? DEFAULT_SPAWN_LIMITS;
    this.#rate = new SpawnRate(options.rate?.count ?? 8, options.rate?.perMs ?? 2_000, this.#now());
    this.#humans = new HumanGates({
      store: options.store,
      runId: options.runId,
      responder: options.humans ?? failResponder,
      now: this.#now,
      events: {
        onOpen: (gate) => {
          this.#recordId(gate.nodeId, 'gate.open', {
            gate: gate.id,
            question: gate.question,
            ...gate.payload,
          });
        },
        onClose: (gate, answer) => {
          this.#recordId(gate.nodeId, 'gate.closed', {
            gate: gate.id,
            answered: answer.answered,
            via: answer.via,
          });
        },
      },
    });
  }

  /**
   * Runs the root agent to its end, then waits for detached descendants (others are stopped when
   * their parent ends). Rejects with `spawn_failed` if the root never starts.
   */
  async runRoot(template: RootTemplate): Promise<NodeResult> {
    const node = this.tree.mintRoot(template.instruction, this.#now());
    const live = this.#start(node, template, 'root', 'process');
    const end = await live.ended();
    if (live.spawnError !== undefined) throw live.spawnError;
    await Promise.all([...this.#live.values()].map((other) => other.ended()));
    return { node, end };
  }

  /** Sends a control frame to a live node; false when it has no live child. */
  send(nodeId: string, frame: ControlFrame): boolean {
    return this.#live.get(nodeId)?.runner?.send(frame) ?? false;
  }

  /** Sends a control frame to every live node (pause, resume). */
  broadcast(frame: ControlFrame): number {
    let sent = 0;
    for (const live of this.#live.values()) if (live.runner?.send(frame) === true) sent += 1;
    return sent;
  }

  /** Hot-swaps the intelligence of every live node at its next turn boundary. */
  swapIntel(intelligence: IntelConfig, policy: SwapPolicy): void {
    for (const live of this.#live.values()) {
      if (live.runner?.send({ type: 'swap_intel', intelligence, policy }) === true) {
        this.#record(live.node, 'intel.swap', { policy, endpoints: intelligence.endpoints.length });
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

  /** Mints a child of `caller` through the chokepoint and starts it. */
  spawnChild(
    caller: LiveNode,
    args: SubagentRunArgs,
    history: TranscriptMessage[] = [],
  ): { ok: true; child: LiveNode } | { ok: false; reason: string } {
    const decision = admitSpawn(
      {
        node: caller.node,
        payload: caller.payload,
        liveChildren: caller.node.children.filter((id) => this.#live.has(id)).length,
      },
      args,
      {
        tree: this.tree,
        limits: this.#limits,
        rate: this.#rate,
        cwd: this.#options.cwd ?? process.cwd(),
        now: this.#now(),
        ...(this.#options.checkGrant === undefined ? {} : { checkGrant: this.#options.checkGrant }),
      },
    );
    if (!decision.ok) {
      this.#record(caller.node, 'spawn.refused', { reason: decision.reason });
      return decision;
    }
    const node = this.tree.mintChild(caller.node.id, args.instruction, this.#now());
    // Only a fork starts from the caller's conversation; every other child starts fresh.
    const payload = decision.provider.capabilities.inheritsParentContext
      ? { ...decision.payload, history }
      : decision.payload;
    const child = this.#start(node, payload, decision.mode, decision.provider.name);
    return { ok: true, child };
  }

  #start(node: TreeNode, template: RootTemplate, mode: NodeMode, provider: ProviderName): LiveNode {
    const { store, runId, timing } = this.#options;
    const payload: SpawnPayload = SpawnPayloadSchema.parse({
      ...template,
      depth: node.depth,
      telemetry: { ...template.telemetry, run_id: runId, node_id: node.id, node_path: node.path },
    });
    const live = new LiveNode(node, payload, mode, provider);
    this.#live.set(node.id, live);
    this.#all.set(node.id, live);
    store.createNode({
      runId,
      id: node.id,
      ...(node.parentId === undefined ? {} : { parentId: node.parentId }),
      path: node.path,
      depth: node.depth,
      provider,
      instruction: node.instruction,
      status: 'spawning',
      payload: redactPayload(payload),
      attempts: 1,
      createdAt: node.createdAt,
      usage: { input_tokens: 0, output_tokens: 0 },
    });
    this.#record(node, 'node.spawned', {
      mode,
      provider,
      depth: node.depth,
      ...(node.parentId === undefined ? {} : { parent: node.parentId }),
    });
    this.#setStatus(node, 'spawning');
    const env = childEnv(this.#options.env, payload);
    live.runner = new NodeRunner({
      payload,
      startChild: () =>
        PROVIDERS[provider].start({
          payload,
          command: childCommand(this.#options.env),
          env,
          ...(this.#options.cwd === undefined ? {} : { cwd: this.#options.cwd }),
          ...(this.#options.pool === undefined ? {} : { pool: this.#options.pool }),
        }),
      timing,
      now: this.#now,
      handlers: {
        onFrame: (frame) => {
          this.#onFrame(live, frame);
        },
        onViolation: (violation) => {
          this.#record(node, 'protocol.violation', {
            code: violation.code,
            line: violation.line,
            reason: violation.reason,
            excerpt: violation.excerpt,
          });
        },
        onToolRequest: (frame) =>
          serveInternal(
            { subagents: this.#subagentApi(), store, humans: this.#humans, now: this.#now },
            live,
            frame,
          ),
        onBudgetRequest: () => Promise.resolve({ ok: true }),
        onTeardown: (reason) => {
          this.#record(node, 'child.teardown', { reason });
        },
      },
      onReady: (attempt, pid) => {
        this.#record(node, 'child.ready', { attempt, ...(pid === undefined ? {} : { pid }) });
        store.updateNode(runId, node.id, {
          status: 'running',
          startedAt: this.#now(),
          attempts: attempt,
        });
        this.#setStatus(node, 'running');
      },
      onRestart: (attempt, delayMs, reason) => {
        this.#record(node, 'node.restart', { attempt, delay_ms: delayMs, reason });
        this.#setStatus(node, 'spawning');
      },
    });
    void live.runner.run().then(
      (end) => {
        this.#finish(live, end);
      },
      (error: unknown) => {
        live.spawnError = error instanceof Error ? error : new Error(String(error));
        const reason = live.spawnError.message;
        this.#finish(
          live,
          {
            outcome: {
              status: 'crashed',
              partial: true,
              result: null,
              reason,
              scheduled: [],
              subscriptions: [],
            },
            via: 'synthetic',
            exit: { code: null, signal: null },
          },
          reason,
        );
      },
    );
    return live;
  }

  #subagentApi(): SubagentApi {
    return {
      spawn: (caller, args, history) => this.spawnChild(caller, args, history),
      children: (caller) =>
        caller.node.children
          .map((id) => this.#nodeById(id))
          .filter((n): n is LiveNode => n !== undefined),
      stopSubtree: (target, reason) => this.#stopSubtree(target.node, reason, false),
      inject: (target, message) => target.runner?.send({ type: 'inject', message }) ?? false,
      subtreeUsage: (target) => subtreeUsage(this.tree, target.node.id),
    };
  }

  #nodeById(id: string): LiveNode | undefined {
    return this.#all.get(id);
  }

  #onFrame(live: LiveNode, frame: AgentFrame): void {
    const { node } = live;
    switch (frame.type) {
      case 'event':
        if (frame.event === 'loop.step') node.steps += 1;
        this.#record(node, frame.event, frame.fields);
        break;
      case 'usage': {
        const usage: Usage = {
          input_tokens: frame.input_tokens,
          output_tokens: frame.output_tokens,
          ...(frame.cost_usd === undefined ? {} : { cost_usd: frame.cost_usd }),
        };
        node.usage = addUsage(node.usage, usage);
        this.#options.store.addUsage(this.#options.runId, node.id, usage);
        this.#options.onEvent?.({ type: 'usage', nodeId: node.id, usage });
        break;
      }
      case 'turn':
        live.recordTurn(frame.outcome);
        this.#options.store.updateNode(this.#options.runId, node.id, { outcome: frame.outcome });
        this.#record(node, 'turn', { status: frame.outcome.status });
        this.#options.onEvent?.({ type: 'turn', nodeId: node.id, outcome: frame.outcome });
        break;
      case 'intel_health':
        this.#record(node, 'intel.health', {
          all_down: frame.all_down,
          ...(frame.active === undefined ? {} : { active: frame.active }),
        });
        break;
      case 'gate':
        this.#record(node, 'gate.open', { node: frame.node });
        break;
      case 'gate_closed':
        this.#record(node, 'gate.closed', { node: frame.node, via: frame.via });
        break;
      case 'ready':
      case 'pong':
      case 'result':
      case 'failed':
      case 'turn_done':
      case 'tool_request':
      case 'budget_request':
        // Handled by the node's run: lifecycle, liveness and requests.
        break;
    }
  }

  #finish(live: LiveNode, end: ChildEnd, spawnError?: string): void {
    const { store, runId } = this.#options;
    const { node } = live;
    node.endedAt = this.#now();
    if (end.teardown !== undefined) this.#record(node, 'child.killed', { ...end.teardown });
    const error = spawnError ?? end.error?.message;
    store.updateNode(runId, node.id, {
      status: end.outcome.status,
      endedAt: node.endedAt,
      outcome: end.outcome,
      ...(error === undefined ? {} : { error }),
    });
    this.#record(node, 'node.end', {
      status: end.outcome.status,
      via: end.via,
      exit_code: end.exit.code,
      ...(end.outcome.reason === undefined ? {} : { reason: end.outcome.reason }),
    });
    this.#setStatus(node, end.outcome.status);
    live.stopped.abort('the node ended');
    this.#live.delete(node.id);
    live.markEnded(end);
    // Children are linked to their parent: when it ends, those not detached are stopped.
    for (const id of node.children) {
      const child = this.#live.get(id);
      if (child !== undefined && child.mode !== 'detached')
        void this.#stopSubtree(child.node, `parent ${node.id} ended`, false);
    }
  }

  /** Stops a node and its subtree, deepest first, and waits until they have ended. */
  async #stopSubtree(root: TreeNode, reason: string, force: boolean): Promise<void> {
    const targets = this.tree
      .deepestFirst(root.id)
      .map((n) => this.#live.get(n.id))
      .filter((n): n is LiveNode => n !== undefined);
    for (const target of targets) {
      this.#record(target.node, 'node.cancel', { reason });
      target.stopped.abort(reason);
    }
    await Promise.all(
      targets.map((target) => target.runner?.stop(reason, { force }) ?? Promise.resolve(undefined)),
    );
    await Promise.all(targets.map((target) => target.ended()));
  }

  #setStatus(node: TreeNode, status: TreeNode['status']): void {
    node.status = status;
    this.#options.onEvent?.({ type: 'node', node });
  }

  #record(node: TreeNode, kind: string, fields: Record<string, unknown>): void {
    this.#recordId(node.id, kind, fields);
  }

  #recordId(nodeId: string | undefined, kind: string, fields: Record<string, unknown>): void {
    this.#options.store.appendEvent({
      runId: this.#options.runId,
      ...(nodeId === undefined ? {} : { nodeId }),
      ts: this.#now(),
      kind,
      data: fields,
    });
    if (nodeId !== undefined) this.#options.onEvent?.({ type: 'event', nodeId, kind, fields });
  }
}
