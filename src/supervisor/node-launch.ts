import { addUsage } from '../loop/index.js';
import {
  TrajectoryEventSchema,
  redactPayload,
  type AgentFrame,
  type ControlFrame,
  type SpawnPayload,
  type Usage,
} from '../protocol/index.js';
import type { CallerKind } from '../tools/index.js';
import type { ChildEnd } from './child-end.js';
import { childCommand, childEnv, type ChildCommand } from './child-entry.js';
import type { ChildPool } from './child-pool.js';
import type { ToolAnswer } from './internal/index.js';
import type { LiveNode } from './live-node.js';
import { NodeRunner } from './node-runner.js';
import { PROVIDERS } from './providers.js';
import type { NodeRecord, NodeStatus, RunStore } from './store-port.js';
import type { Timing } from './timing.js';
import type { ToolGate } from './tool-gate.js';
import type { TreeNode } from './tree.js';
import type { SupervisorEvent } from './supervisor-options.js';

type ToolRequest = Extract<AgentFrame, { type: 'tool_request' }>;
type BudgetRequest = Extract<AgentFrame, { type: 'budget_request' }>;
type BudgetAnswer = Omit<Extract<ControlFrame, { type: 'budget_grant' }>, 'type' | 'id'>;

/** What launching a node needs from the supervisor. */
export interface LaunchContext {
  runId: string;
  store: RunStore;
  timing: Timing;
  env: NodeJS.ProcessEnv;
  cwd: string | undefined;
  pool: ChildPool | undefined;
  /** How a child process is started, when not arbor's own child (`ARBOR_CHILD_COMMAND`). */
  childCommand: ChildCommand | undefined;
  gate: ToolGate;
  now: () => number;
  onEvent(event: SupervisorEvent): void;
  record(node: TreeNode, kind: string, fields: Record<string, unknown>): void;
  setStatus(node: TreeNode, status: TreeNode['status']): void;
  /** Serves a request for an internal tool (everything not gated). */
  serveInternal(live: LiveNode, frame: ToolRequest): Promise<ToolAnswer>;
  admitBudget(live: LiveNode, frame: BudgetRequest): Promise<BudgetAnswer>;
  /** A usage frame arrived (after the node's own totals were updated). */
  onUsage(live: LiveNode, usage: Usage): void;
  /** The node has ended, whatever ended it. */
  onEnded(live: LiveNode, end: ChildEnd): void;
}

/** The kind of caller a node is, for policy rules. */
export function callerKind(live: LiveNode): CallerKind {
  if (live.mode === 'root') return 'root';
  return live.mode === 'plan' ? 'plan' : 'subagent';
}

/** A new node's record: its payload redacted, no usage yet. */
export function nodeRecord(
  runId: string,
  node: TreeNode,
  payload: SpawnPayload,
  provider: string,
  status: NodeStatus,
): NodeRecord {
  return {
    runId,
    id: node.id,
    ...(node.parentId === undefined ? {} : { parentId: node.parentId }),
    path: node.path,
    depth: node.depth,
    provider,
    instruction: node.instruction,
    status,
    payload: redactPayload(payload),
    attempts: 1,
    createdAt: node.createdAt,
    usage: { input_tokens: 0, output_tokens: 0 },
  };
}

/**
 * Starts a node: records it, works out its gated and routed tools, then runs its child with its
 * provider under supervision, folding every frame into the tree, the store and the event stream.
 * Resolves nothing: the node's end reaches `onEnded` (and `live.ended()`).
 */
export function launchNode(context: LaunchContext, live: LiveNode): void {
  const { node, payload, provider } = live;
  context.store.createNode(nodeRecord(context.runId, node, payload, provider, 'spawning'));
  context.record(node, 'node.spawned', {
    mode: live.mode,
    provider,
    depth: node.depth,
    ...(node.parentId === undefined ? {} : { parent: node.parentId }),
  });
  context.setStatus(node, 'spawning');
  void context.gate.prepare(payload, callerKind(live), live.stopped.signal).then(
    (gating) => {
      live.sent = gating.sent;
      if (gating.routedServers.length > 0 || gating.sent.gated_tools.length > 0) {
        context.record(node, 'tools.gated', {
          gated: gating.sent.gated_tools,
          routed_servers: gating.routedServers,
        });
      }
      run(context, live, gating.sent);
    },
    (error: unknown) => {
      const reason = error instanceof Error ? error.message : String(error);
      const code = (error as { code?: unknown }).code;
      finish(context, live, {
        outcome: {
          status: 'failed',
          partial: true,
          result: null,
          reason,
          scheduled: [],
          subscriptions: [],
        },
        via: 'failed',
        error: { message: reason, ...(typeof code === 'string' ? { code } : {}) },
        exit: { code: null, signal: null },
      });
    },
  );
}

function run(context: LaunchContext, live: LiveNode, sent: SpawnPayload): void {
  const { node } = live;
  const env = childEnv(context.env, sent);
  const cwd = live.cwd ?? context.cwd;
  live.runner = new NodeRunner({
    payload: sent,
    startChild: () =>
      PROVIDERS[live.provider].start({
        payload: sent,
        command: context.childCommand ?? childCommand(context.env),
        env,
        // A node with its own working directory (a plan leaf in its worktree) never takes a
        // pooled child: those were started in the supervisor's directory.
        ...(cwd === undefined ? {} : { cwd }),
        ...(context.pool === undefined || live.cwd !== undefined ? {} : { pool: context.pool }),
      }),
    timing: context.timing,
    now: () => context.now(),
    handlers: {
      onFrame: (frame) => {
        onFrame(context, live, frame);
      },
      onViolation: (violation) => {
        context.record(node, 'protocol.violation', {
          code: violation.code,
          line: violation.line,
          reason: violation.reason,
          excerpt: violation.excerpt,
        });
      },
      onToolRequest: (frame) =>
        sent.gated_tools.includes(frame.name)
          ? context.gate.serve(live, frame, callerKind(live))
          : context.serveInternal(live, frame),
      onBudgetRequest: (frame) => context.admitBudget(live, frame),
      onTeardown: (reason) => {
        context.record(node, 'child.teardown', { reason });
      },
    },
    onReady: (attempt, pid) => {
      context.record(node, 'child.ready', { attempt, ...(pid === undefined ? {} : { pid }) });
      context.store.updateNode(context.runId, node.id, {
        status: 'running',
        startedAt: context.now(),
        attempts: attempt,
      });
      context.setStatus(node, 'running');
    },
    onRestart: (attempt, delayMs, reason) => {
      context.record(node, 'node.restart', { attempt, delay_ms: delayMs, reason });
      context.setStatus(node, 'spawning');
    },
  });
  void live.runner.run().then(
    (end) => {
      finish(context, live, end);
    },
    (error: unknown) => {
      live.spawnError = error instanceof Error ? error : new Error(String(error));
      const reason = live.spawnError.message;
      finish(context, live, {
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
      });
    },
  );
}

function onFrame(context: LaunchContext, live: LiveNode, frame: AgentFrame): void {
  const { node } = live;
  switch (frame.type) {
    case 'event':
      if (frame.event === 'loop.step') node.steps += 1;
      if (frame.event === 'trajectory') {
        const trajectory = TrajectoryEventSchema.safeParse(frame.fields);
        if (trajectory.success) node.trajectory = trajectory.data;
      }
      // Deltas are for watchers only: the answer is stored whole, once, with the node's outcome.
      if (frame.event === 'text.delta')
        context.onEvent({
          type: 'event',
          nodeId: node.id,
          kind: frame.event,
          fields: frame.fields,
        });
      else context.record(node, frame.event, frame.fields);
      break;
    case 'usage': {
      const usage: Usage = {
        input_tokens: frame.input_tokens,
        output_tokens: frame.output_tokens,
        ...(frame.cost_usd === undefined ? {} : { cost_usd: frame.cost_usd }),
      };
      node.usage = addUsage(node.usage, usage);
      context.store.addUsage(context.runId, node.id, usage);
      context.onEvent({ type: 'usage', nodeId: node.id, usage });
      context.onUsage(live, usage);
      break;
    }
    case 'turn':
      live.recordTurn(frame.outcome);
      context.store.updateNode(context.runId, node.id, { outcome: frame.outcome });
      context.record(node, 'turn', { status: frame.outcome.status });
      context.onEvent({ type: 'turn', nodeId: node.id, outcome: frame.outcome });
      break;
    case 'intel_health':
      context.record(node, 'intel.health', {
        all_down: frame.all_down,
        ...(frame.active === undefined ? {} : { active: frame.active }),
      });
      break;
    case 'gate':
      context.record(node, 'gate.open', { node: frame.node });
      break;
    case 'gate_closed':
      context.record(node, 'gate.closed', { node: frame.node, via: frame.via });
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

function finish(context: LaunchContext, live: LiveNode, end: ChildEnd): void {
  const { node } = live;
  node.endedAt = context.now();
  if (end.teardown !== undefined) {
    const { durationMs, ...teardown } = end.teardown;
    context.record(node, 'child.killed', { ...teardown, duration_ms: durationMs });
  }
  const error = end.error?.message;
  context.store.updateNode(context.runId, node.id, {
    status: end.outcome.status,
    endedAt: node.endedAt,
    outcome: end.outcome,
    ...(error === undefined ? {} : { error }),
  });
  context.record(node, 'node.end', {
    status: end.outcome.status,
    via: end.via,
    exit_code: end.exit.code,
    ...(end.outcome.reason === undefined ? {} : { reason: end.outcome.reason }),
  });
  context.setStatus(node, end.outcome.status);
  context.onEnded(live, end);
}
