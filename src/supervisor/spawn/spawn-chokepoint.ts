import type { SpawnPayload } from '../../protocol/index.js';
import type { SubagentRunArgs } from '../../tools/index.js';
import { PROVIDERS, requireCapabilities, type Provider } from '../launch/providers.js';
import type { Grant, Share } from '../budget/index.js';
import type { SpawnRate } from './spawn-rate.js';
import type { Tree, TreeNode } from '../tree.js';
import {
  allowedTools,
  completeRequest,
  handedDownContext,
  inheritedTrajectory,
  knownTrajectory,
  meetGrant,
  meetToolGrants,
  narrowServers,
  narrowTools,
  peersFor,
} from '../../authority/index.js';

/** The caps every spawn is checked against. */
export interface SpawnLimits {
  /** Deepest depth a node may have (the root is 0). */
  maxDepth: number;
  /** Live children one node may have at once. */
  maxBreadth: number;
  /** Nodes the run may create in all, the root excluded. */
  maxTotal: number;
  /**
   * Spawns that may wait at once across the run, for the spawn rate or their caller's breadth;
   * past it a spawn is refused instead of queued.
   */
  maxQueued?: number;
}

/** What the chokepoint needs to know about the caller: its record, never its claims. */
export interface Caller {
  node: TreeNode;
  /** The caller's own payload, as minted (credentials included; never leaves the supervisor). */
  payload: SpawnPayload;
  /** Children of the caller still running. */
  liveChildren: number;
}

export interface ChokepointContext {
  tree: Tree;
  limits: SpawnLimits;
  rate: SpawnRate;
  cwd: string;
  now: number;
  /**
   * The budget the child may hold, carved from what the caller has left (the ledger). A string is
   * the refusal. Steps and wall time come back as the child's `max_steps` and `deadline_ms`.
   */
  budgetFor?(caller: Caller, requested: SubagentRunArgs['budget']): Share;
  /** Authority checks over the child's narrowed grant (trifecta, policy); a string is the refusal. */
  checkGrant?(payload: SpawnPayload, caller: Caller): string | undefined;
  /** Whether the run has a fleet of workers for `queue` children. */
  hasFleet?: boolean;
}

/** A spawn the chokepoint let through: the child's payload minus what only the tree can mint. */
export interface Admitted {
  ok: true;
  provider: Provider;
  mode: NonNullable<SubagentRunArgs['mode']>;
  /** Everything but `telemetry` and `depth`, which the supervisor stamps when it mints the node. */
  payload: Omit<SpawnPayload, 'telemetry' | 'depth'>;
  /** The child's share of the budget, for the ledger. */
  grant: Grant;
}

export interface Refused {
  ok: false;
  /** Says which limit or rule refused, with numbers: "depth 2 exceeds max_depth 1". */
  reason: string;
  /** Set when the refusal holds only for now: the spawn may wait for this, then try again. */
  wait?: SpawnWait;
}

/** What a spawn over a passing limit waits for: one of its caller's children to end, or time. */
export type SpawnWait = { for: 'breadth' } | { for: 'rate'; ms: number };

/**
 * The one function every spawn goes through — `subagent.run`, a plan leaf — with its gates in
 * order: instruction, mode, depth (from the caller's record), breadth, total, spawn rate, budget,
 * then the child's grant is narrowed from the caller's and checked (servers, tools, caveats,
 * trifecta and policy, provider capabilities). A refusal is returned, never thrown: the model
 * reads it as a tool error and can adapt. Breadth and rate refusals say what to wait for: the
 * supervisor queues those spawns (`SpawnQueue`) rather than refusing them outright.
 */
export function admitSpawn(
  caller: Caller,
  args: SubagentRunArgs,
  context: ChokepointContext,
): Admitted | Refused {
  const refuse = (reason: string, wait?: SpawnWait): Refused => ({
    ok: false,
    reason,
    ...(wait === undefined ? {} : { wait }),
  });
  if (args.instruction.trim() === '')
    return refuse('the instruction is empty: say what the sub-agent should do');
  const mode = args.mode ?? 'sync';
  const depth = caller.node.depth + 1;
  if (depth > context.limits.maxDepth)
    return refuse(`depth ${depth} exceeds max_depth ${context.limits.maxDepth}`);
  if (caller.liveChildren >= context.limits.maxBreadth) {
    return refuse(
      `breadth: node ${caller.node.path} already has ${caller.liveChildren} running sub-agents (max_breadth ${context.limits.maxBreadth})`,
      caller.liveChildren > 0 ? { for: 'breadth' } : undefined,
    );
  }
  const spawned = context.tree.size - 1;
  if (spawned >= context.limits.maxTotal)
    return refuse(
      `total: the run already has ${spawned} sub-agents (max_total ${context.limits.maxTotal})`,
    );
  if (!context.rate.take(context.now))
    return refuse('spawn rate exceeded: wait before starting more sub-agents', {
      for: 'rate',
      ms: context.rate.msUntilToken(context.now),
    });
  const budget = context.budgetFor?.(caller, args.budget);
  if (budget !== undefined && !budget.ok) return refuse(budget.reason);

  const servers = narrowServers(caller.payload.mcp_servers, args.servers);
  if (!servers.ok) return refuse(servers.reason);
  const peers = peersFor(caller.payload.a2a_peers, args);
  if (!peers.ok) return refuse(peers.reason);
  if (args.provider === 'queue' && context.hasFleet !== true)
    return refuse(
      'provider `queue` needs a fleet of workers, and this run has none (start it with `--redis`, `ARBOR_REDIS_URL` or `[queue] redis`)',
    );
  const provider = PROVIDERS[args.provider ?? 'process'];
  try {
    requireCapabilities(provider, {
      outputSchema: args.output_schema !== undefined,
      // A narrowed caller's child must be narrowed too, whether or not it asks for tools.
      toolFilter: args.tools !== undefined || allowedTools(caller.payload) !== undefined,
      persona: args.persona !== undefined,
      depthLimit: true,
      tlsCa: caller.payload.tls_ca !== undefined,
    });
  } catch (error) {
    return refuse(error instanceof Error ? error.message : String(error));
  }
  const tools = meetToolGrants(allowedTools(caller.payload), args.tools);
  const base: Omit<SpawnPayload, 'telemetry' | 'depth'> = {
    ...caller.payload,
    instruction: args.instruction,
    ...optional('output_contract', args.output_contract),
    context_seed: handedDownContext(args.context ?? []),
    history: [],
    mcp_servers: args.provider === 'a2a' ? [] : servers.servers,
    a2a_peers: peers.peers,
    gated_tools: [],
    limits: {
      ...caller.payload.limits,
      max_depth: context.limits.maxDepth - depth,
      ...(budget === undefined ? {} : { max_steps: budget.maxSteps }),
    },
    warm: mode === 'warm',
    role: 'agent',
    ...optional('output_schema', args.output_schema),
    caveats:
      args.caveats === undefined
        ? caller.payload.caveats
        : meetGrant(caller.payload.caveats, completeRequest(args.caveats), {
            cwd: context.cwd,
          }),
    ...optional('persona', args.persona),
    // Who spawned the child, but never what it was told: the parent's instruction is not the child's.
    orchestrator: { name: `arbor node ${caller.node.path}` },
  };
  // The seed must not carry the caller's own fields that do not pass down.
  delete base.turn;
  delete base.risk_seed;
  delete base.inherited_taint;
  // A child starts as tainted as its caller, and as risky (damped): see `inheritedTrajectory`.
  Object.assign(base, inheritedTrajectory(knownTrajectory(caller.node.trajectory, caller.payload)));
  if (args.output_schema === undefined) delete base.output_schema;
  if (args.persona === undefined) delete base.persona;
  if (args.output_contract === undefined) delete base.output_contract;
  const payload = tools === undefined ? base : narrowTools(base as SpawnPayload, tools);
  const grant = context.checkGrant?.(payload as SpawnPayload, caller);
  if (grant !== undefined) return refuse(grant);
  if (budget !== undefined) {
    if (budget.deadlineMs === undefined) delete payload.limits.deadline_ms;
    else payload.limits.deadline_ms = budget.deadlineMs;
  }
  return { ok: true, provider, mode, payload, grant: budget?.grant ?? {} };
}

function optional<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, V>);
}
