import { addUsage } from '../../loop/index.js';
import {
  eventBody,
  outcomeOf,
  type AgentFrame,
  type ControlFrame,
  type IntelLimitsFrame,
  type RunEventBody,
  type SecretScrubber,
  type SpawnPayload,
  type Usage,
} from '../../protocol/index.js';
import type { CallerKind } from '../../authority/policy/index.js';
import { scrubbedEnd, type ChildEnd } from './child-end.js';
import { childEnv } from '../launch/child-entry.js';
import type { ChildLauncher } from '../launch/child-launcher.js';
import type { ChildPool } from '../launch/child-pool.js';
import type { ToolAnswer } from '../internal/index.js';
import type { LiveNode } from './live-node.js';
import { NodeEvents } from './node-events.js';
import { NodeRunner } from './node-runner.js';
import { NodeParking } from './node-parking.js';
import { nodeRecord } from './node-record.js';
import { PROVIDERS, type FleetPort } from '../launch/providers.js';
import { remoteNode } from '../launch/remote-node.js';
import type { RunStore } from '../../store/store-port.js';
import type { Timing } from '../timing.js';
import type { ToolGate } from '../gates/tool-gate.js';
import type { EgressHost } from '../launch/egress-host.js';
import type { TreeNode } from '../tree.js';
import { killPoint } from '../launch/kill-points.js';
import { priceUsage } from '../pricing/index.js';
import type { SupervisorEvent } from '../supervisor-options.js';

export type ToolRequest = Extract<AgentFrame, { type: 'tool_request' }>;
export type BudgetRequest = Extract<AgentFrame, { type: 'budget_request' }>;
export type BudgetAnswer = Omit<Extract<ControlFrame, { type: 'budget_grant' }>, 'type' | 'id'>;

/**
 * Down: what a node's lifecycle starts and supervises its child with. Fixed for the run.
 */
export interface NodeEnvironment {
  runId: string;
  store: RunStore;
  timing: Timing;
  env: NodeJS.ProcessEnv;
  cwd: string | undefined;
  pool: ChildPool | undefined;
  /** Workers on other machines, for `queue` nodes. */
  fleet: FleetPort | undefined;
  /** How a process child is started: from the snapshot, the bundle, or a command of the caller's. */
  launcher: ChildLauncher;
  /** Gated and routed tools: worked out before the child starts, served while it runs. */
  gate: ToolGate;
  /** The run's secret scrubber: what the node streams, reports and ends with passes it. */
  scrub: SecretScrubber;
  /** The run's egress proxy, for the commands of nodes that run here. */
  egress: EgressHost;
  now: () => number;
}

/**
 * Up: what a node tells the supervisor that owns it, and what it asks of it. The supervisor is the
 * only implementation; every call comes from one node's lifecycle, on that node's behalf.
 */
export interface NodeOwner {
  /** An event of the node, scrubbed, recorded in the store and passed to observers. */
  record(node: TreeNode, event: RunEventBody): void;
  /** An event of the node passed to observers only, as it is (a `text.delta`, scrubbed here). */
  stream(node: TreeNode, event: RunEventBody): void;
  /** Passed to observers only, as it is (a usage report, a turn's outcome). */
  emit(event: SupervisorEvent): void;
  setStatus(node: TreeNode, status: TreeNode['status']): void;
  /** A usage frame arrived (after the node's own totals were updated). */
  usage(live: LiveNode, usage: Usage): void;
  /** The node has ended, whatever ended it. */
  ended(live: LiveNode, end: ChildEnd): void;
  /** Serves a request for an internal tool (everything not gated): sub-agents, memory, people. */
  serveInternal(live: LiveNode, frame: ToolRequest): Promise<ToolAnswer>;
  /** Answers a `budget_request` from the run's one ledger. */
  admitBudget(live: LiveNode, frame: BudgetRequest): Promise<BudgetAnswer>;
  /** What one of the node's model calls heard of its provider's rate limits. */
  rateLimits(live: LiveNode, frame: IntelLimitsFrame): void;
}

/** The kind of caller a node is, for policy rules. */
function callerKind(live: LiveNode): CallerKind {
  if (live.mode === 'root') return 'root';
  return live.mode === 'plan' ? 'plan' : 'subagent';
}

/**
 * One node from spawn to end, the way a spawn travels. Down: `start` records the node, works out
 * its gated and routed tools, and hands a `NodeRunner` the child to start through the node's
 * provider (`NodeRunner` → `ProcessRun` → the child process, or an in-process child). Up: every
 * frame the child sends comes back through `ProcessRun` (liveness, requests) and `NodeRunner`
 * (restarts, turns) to `#onFrame` here, which folds it into the tree and tells the `NodeOwner`
 * (`event` frames through `NodeEvents`, where they are checked against their schemas);
 * requests go to the gate or the owner; the end, whatever caused it, reaches `#finish` once.
 */
export class NodeLifecycle {
  readonly #env: NodeEnvironment;
  readonly #owner: NodeOwner;
  readonly #live: LiveNode;
  /** The node's `event` frames: its transcript, its streamed answer, its run events. */
  readonly #events: NodeEvents;
  /** How the node parks, when it may. */
  #parking: NodeParking | undefined;

  constructor(env: NodeEnvironment, owner: NodeOwner, live: LiveNode) {
    this.#env = env;
    this.#owner = owner;
    this.#live = live;
    this.#events = new NodeEvents(env, owner, live.node);
  }

  /** Starts the node. Resolves nothing: its end reaches `NodeOwner.ended` (and `live.ended()`). */
  start(): void {
    const { node, payload, provider } = this.#live;
    const { store, runId, gate } = this.#env;
    if (this.#live.resumed) {
      store.updateNode(runId, node.id, { status: 'spawning' });
      this.#owner.record(node, {
        type: 'node.resumed',
        mode: this.#live.mode,
        provider,
        transcriptMessages: payload.resume?.transcript.length ?? 0,
      });
    } else {
      store.createNode(nodeRecord(runId, node, payload, provider, 'spawning', this.#env.scrub));
      this.#owner.record(node, {
        type: 'node.spawned',
        mode: this.#live.mode,
        provider,
        depth: node.depth,
        ...(node.parentId === undefined ? {} : { parent: node.parentId }),
      });
    }
    this.#owner.setStatus(node, 'spawning');
    killPoint('spawn-minted', store);
    void Promise.all([
      gate.prepare(payload, callerKind(this.#live), this.#live.stopped.signal),
      provider === 'process' ? this.#env.launcher.prepare() : undefined,
    ]).then(
      async ([gating]) => {
        // A node that runs here gets its egress proxy; a fleet worker opens its own.
        const sent =
          provider !== 'queue' && provider !== 'a2a'
            ? await this.#env.egress.open(node.id, gating.sent)
            : gating.sent;
        this.#live.sent = sent;
        if (gating.routedServers.length > 0 || gating.sent.gated_tools.length > 0) {
          this.#owner.record(node, {
            type: 'tools.gated',
            gated: [...gating.sent.gated_tools],
            routedServers: [...gating.routedServers],
          });
        }
        this.#run(sent);
      },
      (error: unknown) => {
        const reason = error instanceof Error ? error.message : String(error);
        const code = (error as { code?: unknown }).code;
        this.#finish({
          outcome: outcomeOf('failed', null, reason),
          via: 'failed',
          error: { message: reason, ...(typeof code === 'string' ? { code } : {}) },
          exit: { code: null, signal: null },
        });
      },
    );
  }

  /** Down to the child: its runner, with the handlers every frame comes back up through. */
  #run(sent: SpawnPayload): void {
    const live = this.#live;
    const { node } = live;
    const env = this.#env;
    const owner = this.#owner;
    // Only a process child starts with an environment: worked out on its first start.
    let childEnvironment: NodeJS.ProcessEnv | undefined;
    const cwd = live.cwd ?? env.cwd;
    const remote =
      live.provider === 'queue'
        ? remoteNode({
            fleet: env.fleet,
            store: env.store,
            runId: env.runId,
            node,
            sent,
            timing: env.timing,
            record: (...event) => {
              owner.record(node, eventBody(...event));
            },
          })
        : undefined;
    const parking = NodeParking.for(env, owner, live, sent);
    this.#parking = parking;
    live.runner = new NodeRunner({
      payload: sent,
      startChild: (payload, attempt) =>
        PROVIDERS[live.provider].start({
          payload,
          command: env.launcher.command(),
          env: live.provider === 'process' ? (childEnvironment ??= childEnv(env.env, sent)) : {},
          // A node with its own working directory (a plan leaf in its worktree) never takes a
          // pooled child: those were started in the supervisor's directory.
          ...(cwd === undefined ? {} : { cwd }),
          ...(env.pool === undefined || live.cwd !== undefined ? {} : { pool: env.pool }),
          ...(remote === undefined ? {} : { remote: remote.remote(attempt) }),
        }),
      ...(remote?.requeue === undefined ? {} : { requeue: remote.requeue }),
      timing: env.timing,
      now: () => env.now(),
      handlers: {
        onFrame: (frame) => {
          this.#onFrame(frame);
        },
        onViolation: (violation) => {
          owner.record(node, {
            type: 'protocol.violation',
            code: violation.code,
            line: violation.line,
            reason: violation.reason,
            excerpt: violation.excerpt,
          });
        },
        onToolRequest: (frame) => {
          const serve = () =>
            sent.gated_tools.includes(frame.name)
              ? env.gate.serve(live, frame, callerKind(live))
              : owner.serveInternal(live, frame);
          return parking === undefined ? serve() : parking.serve(frame, serve);
        },
        onBudgetRequest: (frame) => owner.admitBudget(live, frame),
        onTeardown: (reason) => {
          owner.record(node, { type: 'child.teardown', reason });
        },
      },
      onReady: (attempt, pid, pooled) => {
        parking?.ready();
        owner.record(node, {
          type: 'child.ready',
          attempt,
          ...(pid === undefined ? {} : { pid }),
          ...(pooled ? { pooled } : {}),
        });
        env.store.updateNode(env.runId, node.id, {
          status: 'running',
          startedAt: env.now(),
          attempts: attempt,
        });
        owner.setStatus(node, 'running');
        killPoint('child-ready', env.store);
      },
      onRequeue: (attempt, reason) => {
        owner.record(node, { type: 'node.requeue', attempt, reason });
        owner.setStatus(node, 'spawning');
      },
      ...parking?.runnerOptions,
      onRestart: (attempt, delayMs, reason) => {
        owner.record(node, { type: 'node.restart', attempt, delayMs, reason });
        owner.setStatus(node, 'spawning');
      },
    });
    // Messages (and a close) given while the node was being prepared wait in the runner for its
    // child, in the order they were given.
    const pending = live.takePending();
    for (const message of pending.injects) live.runner.send({ type: 'inject', message });
    if (pending.close !== undefined) live.runner.send({ type: 'cancel', reason: pending.close });
    void live.runner.run().then(
      (end) => {
        this.#finish(end);
      },
      (error: unknown) => {
        live.spawnError = error instanceof Error ? error : new Error(String(error));
        // It is shown (`arbor run` prints why the root could not start) and may quote stderr.
        live.spawnError.message = env.scrub.text(live.spawnError.message);
        this.#finish({
          outcome: outcomeOf('crashed', null, live.spawnError.message),
          via: 'synthetic',
          exit: { code: null, signal: null },
        });
      },
    );
  }

  /** Up from the child: a frame, folded into the tree, the store and the event stream. */
  #onFrame(frame: AgentFrame): void {
    const live = this.#live;
    const { node } = live;
    const { store, runId } = this.#env;
    const owner = this.#owner;
    switch (frame.type) {
      case 'event':
        this.#events.frame(frame);
        break;
      case 'usage': {
        // Priced here, for every provider alike: the child reports tokens and who answered.
        const { type: _type, model, endpoint, model_asked: modelAsked, ...reported } = frame;
        const answered = { model, endpoint, modelAsked };
        const usage = priceUsage(reported, answered, live.payload.intelligence);
        node.usage = addUsage(node.usage, usage);
        store.addUsage(runId, node.id, usage);
        owner.emit({ type: 'usage', nodeId: node.id, usage });
        owner.usage(live, usage);
        break;
      }
      case 'turn': {
        this.#events.endText();
        const outcome = this.#env.scrub.deep(frame.outcome);
        live.recordTurn(outcome);
        store.updateNode(runId, node.id, { outcome });
        owner.record(node, { type: 'turn', status: outcome.status });
        owner.emit({ type: 'turn', nodeId: node.id, outcome });
        this.#events.turn(outcome);
        break;
      }
      case 'intel_health':
        owner.record(node, {
          type: 'intel.health',
          allDown: frame.all_down,
          ...(frame.active === undefined ? {} : { active: frame.active }),
        });
        break;
      case 'intel_limits':
        owner.rateLimits(live, frame);
        break;
      case 'gate':
        owner.record(node, { type: 'gate.opened', node: frame.node });
        break;
      case 'gate_closed':
        owner.record(node, { type: 'gate.closed', node: frame.node, via: frame.via });
        break;
      case 'ready':
      case 'pong':
      case 'result':
      case 'failed':
      case 'turn_done':
      case 'tool_request':
      case 'budget_request':
        // Handled below: lifecycle and liveness by the run, requests by the handlers above.
        break;
    }
  }

  /**
   * The end, whatever caused it: recorded once, then handed to the owner. Its outcome and error
   * are scrubbed here, once, for every way they go on: the store, the parent, the run's answer.
   */
  #finish(ended: ChildEnd): void {
    this.#events.endText();
    this.#parking?.stop();
    const end = scrubbedEnd(ended, this.#env.scrub);
    const live = this.#live;
    const { node } = live;
    const { store, runId } = this.#env;
    const owner = this.#owner;
    node.endedAt = this.#env.now();
    // Its commands have ended with it: the proxy reports their last traffic.
    void this.#env.egress.close(node.id);
    if (end.teardown !== undefined) {
      const { durationMs, ...teardown } = end.teardown;
      owner.record(node, { type: 'child.killed', ...teardown, durationMs });
    }
    const error = end.error?.message;
    if (node.parentId === undefined) killPoint('root-result', store);
    store.updateNode(runId, node.id, {
      status: end.outcome.status,
      endedAt: node.endedAt,
      outcome: end.outcome,
      ...(error === undefined ? {} : { error }),
    });
    owner.record(node, {
      type: 'node.end',
      status: end.outcome.status,
      via: end.via,
      exitCode: end.exit.code,
      ...(end.outcome.reason === undefined ? {} : { reason: end.outcome.reason }),
      // Only the first violations are recorded one by one: the rest are counted here, once.
      ...(end.protocol === undefined
        ? {}
        : { violations: end.protocol.violations, droppedLines: end.protocol.dropped }),
    });
    owner.setStatus(node, end.outcome.status);
    if (node.parentId !== undefined) killPoint('child-result', store);
    owner.ended(live, end);
  }
}
