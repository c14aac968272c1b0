import {
  redactPayload,
  type AgentFrame,
  type ControlFrame,
  type IntelConfig,
  type SwapPolicy,
  type Outcome,
  type SpawnPayload,
  type Usage,
} from '../protocol/index.js';
import { childCommand, childEnv } from './child-entry.js';
import { serveInternalTool } from './internal-tools.js';
import type { ChildPool } from './child-pool.js';
import { NodeRunner } from './node-runner.js';
import type { ChildEnd } from './child-end.js';
import type { RunStore } from './store-port.js';
import type { Timing } from './timing.js';
import { Tree, type TreeNode } from './tree.js';

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
  onEvent?(event: SupervisorEvent): void;
  now?: () => number;
}

/** The payload fields the supervisor mints itself. */
export type PayloadTemplate = Omit<SpawnPayload, 'telemetry' | 'depth'> & {
  telemetry?: Partial<SpawnPayload['telemetry']>;
};

export interface NodeResult {
  node: TreeNode;
  end: ChildEnd;
}

/**
 * The supervisor owns the tree: it mints every node, starts its child, watches it, serves what it
 * asks for, records everything, and tears it down when it must. It never calls the model itself.
 */
export class Supervisor {
  readonly tree = new Tree();
  readonly #options: SupervisorOptions;
  readonly #now: () => number;
  readonly #runs = new Map<string, NodeRunner>();
  readonly #stops = new Map<string, AbortController>();

  constructor(options: SupervisorOptions) {
    this.#options = options;
    this.#now = options.now ?? (() => Date.now());
  }

  /** Runs the root agent of the run to its end. Rejects with `spawn_failed` if it never starts. */
  async runRoot(template: PayloadTemplate): Promise<NodeResult> {
    const node = this.tree.mintRoot(template.instruction, this.#now());
    return this.#runNode(node, template);
  }

  /** Sends a control frame to a live node; false when it has no live child. */
  send(nodeId: string, frame: ControlFrame): boolean {
    return this.#runs.get(nodeId)?.send(frame) ?? false;
  }

  /** Sends a control frame to every live node (pause, resume, swap_intel). */
  broadcast(frame: ControlFrame): number {
    let sent = 0;
    for (const run of this.#runs.values()) if (run.send(frame)) sent += 1;
    return sent;
  }

  /** Hot-swaps the intelligence of every live node at its next turn boundary. */
  swapIntel(intelligence: IntelConfig, policy: SwapPolicy): void {
    for (const node of this.tree.nodes()) {
      if (this.send(node.id, { type: 'swap_intel', intelligence, policy })) {
        this.#record(node, 'intel.swap', { policy, endpoints: intelligence.endpoints.length });
      }
    }
  }

  /** Stops every live child, deepest first; `force` goes straight to SIGKILL. */
  async stopAll(reason: string, options: { force?: boolean } = {}): Promise<void> {
    const live = this.tree
      .nodes()
      .filter((node) => this.#runs.has(node.id))
      .sort((a, b) => b.depth - a.depth);
    for (const node of live) this.#stops.get(node.id)?.abort(reason);
    await Promise.all(
      live.map(
        (node) =>
          this.#runs.get(node.id)?.stop(reason, { force: options.force === true }) ??
          Promise.resolve(undefined),
      ),
    );
  }

  async #runNode(node: TreeNode, template: PayloadTemplate): Promise<NodeResult> {
    const { store, runId, timing } = this.#options;
    const payload: SpawnPayload = {
      ...template,
      depth: node.depth,
      telemetry: {
        log_level: 'info',
        log_content: false,
        ...template.telemetry,
        run_id: runId,
        node_id: node.id,
        node_path: node.path,
      },
    };
    store.createNode({
      runId,
      id: node.id,
      ...(node.parentId === undefined ? {} : { parentId: node.parentId }),
      path: node.path,
      depth: node.depth,
      provider: 'process',
      instruction: node.instruction,
      status: 'spawning',
      payload: redactPayload(payload),
      attempts: 1,
      createdAt: node.createdAt,
      usage: { input_tokens: 0, output_tokens: 0 },
    });
    this.#setStatus(node, 'spawning');
    const stop = new AbortController();
    this.#stops.set(node.id, stop);
    const runner = new NodeRunner({
      payload,
      command: childCommand(this.#options.env),
      env: childEnv(this.#options.env, payload),
      ...(this.#options.cwd === undefined ? {} : { cwd: this.#options.cwd }),
      ...(this.#options.pool === undefined ? {} : { pool: this.#options.pool }),
      timing,
      now: this.#now,
      handlers: {
        onFrame: (frame) => {
          this.#onFrame(node, frame);
        },
        onViolation: (violation) => {
          this.#record(node, 'protocol.violation', {
            code: violation.code,
            line: violation.line,
            reason: violation.reason,
            excerpt: violation.excerpt,
          });
        },
        onToolRequest: (frame) => serveInternalTool(frame, stop.signal),
        onBudgetRequest: () => Promise.resolve({ ok: true }),
        onTeardown: (reason) => {
          this.#record(node, 'child.teardown', { reason });
        },
      },
      onReady: (attempt, pid) => {
        this.#record(node, 'child.ready', { attempt, pid });
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
    this.#runs.set(node.id, runner);
    let end: ChildEnd;
    try {
      end = await runner.run();
    } catch (error) {
      this.#finishFailedSpawn(node, error);
      throw error;
    }
    this.#finish(node, end);
    return { node, end };
  }

  #finishFailedSpawn(node: TreeNode, error: unknown): void {
    const reason = error instanceof Error ? error.message : String(error);
    this.#finish(
      node,
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
  }

  #onFrame(node: TreeNode, frame: AgentFrame): void {
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
        node.usage = {
          input_tokens: node.usage.input_tokens + usage.input_tokens,
          output_tokens: node.usage.output_tokens + usage.output_tokens,
          ...(usage.cost_usd === undefined && node.usage.cost_usd === undefined
            ? {}
            : { cost_usd: (node.usage.cost_usd ?? 0) + (usage.cost_usd ?? 0) }),
        };
        this.#options.store.addUsage(this.#options.runId, node.id, usage);
        this.#options.onEvent?.({ type: 'usage', nodeId: node.id, usage });
        break;
      }
      case 'turn':
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

  #finish(node: TreeNode, end: ChildEnd, spawnError?: string): void {
    const { store, runId } = this.#options;
    this.#runs.delete(node.id);
    this.#stops.delete(node.id);
    node.endedAt = this.#now();
    if (end.teardown !== undefined) {
      this.#record(node, 'child.killed', { ...end.teardown });
    }
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
  }

  #setStatus(node: TreeNode, status: TreeNode['status']): void {
    node.status = status;
    this.#options.onEvent?.({ type: 'node', node });
  }

  #record(node: TreeNode, kind: string, fields: Record<string, unknown>): void {
    this.#options.store.appendEvent({
      runId: this.#options.runId,
      nodeId: node.id,
      ts: this.#now(),
      kind,
      data: fields,
    });
    this.#options.onEvent?.({ type: 'event', nodeId: node.id, kind, fields });
  }
}
