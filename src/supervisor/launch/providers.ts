import { createModelClient } from '../../intel/index.js';
import { ArborError, type RunEventArgs, type SpawnPayload } from '../../protocol/index.js';
import type { ChildCommand } from './child-entry.js';
import type { ChildHandle } from './child-handle.js';
import type { ChildPool } from './child-pool.js';
import { ChildProcess } from './child-process.js';
import { InMemoryChild } from './in-memory-child.js';
import { runA2aChild } from './a2a-child.js';
import type { Timing } from '../timing.js';

export const PROVIDER_NAMES = ['process', 'spawn', 'fork', 'a2a', 'queue'] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

/**
 * What a provider can enforce at a child's creation. A request that needs a capability its
 * provider lacks fails before any child exists: never accepted and then ignored.
 */
interface ProviderCapabilities {
  /** The result can be held to a JSON Schema. */
  outputSchema: boolean;
  /** The depth cap is enforced for the child's own delegations. */
  depthLimit: boolean;
  /** The child's tools can be narrowed to an allow-list. */
  toolFilter: boolean;
  /** The child's system prompt can carry a persona. */
  persona: boolean;
  /**
   * The child can trust an extra CA for outbound TLS (`tls_ca`): only a child started as its own
   * process can, since Node reads `NODE_EXTRA_CA_CERTS` once, at process start.
   */
  tlsCa: boolean;
  /** Descriptive: the child starts from the parent's conversation. */
  inheritsParentContext: boolean;
}

interface StartContext {
  payload: SpawnPayload;
  command: ChildCommand;
  env: NodeJS.ProcessEnv;
  cwd?: string;
  pool?: ChildPool;
  /** Where `queue` children run, and what they need to be placed there. */
  remote?: RemoteStart;
}

/** What a fleet reports of a node's attempts. */
export type FleetEventType =
  'fleet.queued' | 'fleet.assigned' | 'fleet.lost' | 'net.refused' | 'net.traffic';

/** What a child started on a fleet needs besides its payload. */
export interface RemoteStart {
  fleet: FleetPort | undefined;
  node: { runId: string; nodeId: string; path: string };
  /** The attempt this start is (1 for the first; more after the node was queued again). */
  attempt: number;
  timing: Timing;
  /** Records an event of the node (queued, which worker took it, lost). */
  record(...event: RunEventArgs<FleetEventType>): void;
}

/**
 * A fleet of workers that runs `queue` children (see `src/fleet/`). The supervisor still mints
 * every payload and serves every request; the fleet only carries the child's frames.
 */
export interface FleetPort {
  /** Attempts in all for a node whose worker is lost, before it ends `crashed`. */
  readonly attempts: number;
  start(payload: SpawnPayload, remote: RemoteStart): ChildHandle;
}

/** How a node's child is run. Every provider yields a handle speaking protocol v1. */
export interface Provider {
  name: ProviderName;
  capabilities: ProviderCapabilities;
  start(context: StartContext): ChildHandle;
}

/** What every provider here enforces: they all run the same child code (`runChild`). */
const CHILD_CODE = { outputSchema: true, depthLimit: true, toolFilter: true, persona: true };

/** An in-process child; its file and `exec` tools work in `cwd` (the supervisor's by default). */
const inProcess = ({ cwd }: { cwd?: string }): ChildHandle =>
  new InMemoryChild({
    connectModel: (config, options) => createModelClient(config, options),
    ...(cwd === undefined ? {} : { cwd }),
  });

/** The built-in providers. */
export const PROVIDERS: Readonly<Record<ProviderName, Provider>> = {
  /** A separate OS process: full isolation, killable, costs a process start (or a pooled child). */
  process: {
    name: 'process',
    capabilities: { ...CHILD_CODE, tlsCa: true, inheritsParentContext: false },
    start: ({ payload, command, env, cwd, pool }) =>
      (payload.tls_ca === undefined ? pool?.take() : undefined) ??
      new ChildProcess({
        command: command.command,
        args: command.args,
        env,
        ...(cwd === undefined ? {} : { cwd }),
      }),
  },
  /** In this process, with a fresh conversation: cheap, no isolation of memory or CPU. */
  spawn: {
    name: 'spawn',
    capabilities: { ...CHILD_CODE, tlsCa: false, inheritsParentContext: false },
    start: inProcess,
  },
  /** In this process, starting from the parent's completed steps. */
  fork: {
    name: 'fork',
    capabilities: { ...CHILD_CODE, tlsCa: false, inheritsParentContext: true },
    start: inProcess,
  },
  /**
   * A child process on a fleet worker, reached through BullMQ on Redis: the same child, sandbox
   * and kill ladder as `process`, on another machine. The worker resolves credentials and MCP
   * servers from its own environment and config; an extra CA file is the worker's business.
   */
  queue: {
    name: 'queue',
    capabilities: { ...CHILD_CODE, tlsCa: false, inheritsParentContext: false },
    start: ({ payload, remote }) => {
      if (remote?.fleet === undefined)
        throw new ArborError(
          'usage',
          "provider `queue` needs a fleet: give `--redis` (or `ARBOR_REDIS_URL`, or `[queue] redis`), the supervisor's private key and the workers it admits (docs/scale-out.md)",
        );
      return remote.fleet.start(payload, remote);
    },
  },
  /**
   * A remote A2A agent (the node's one peer) does the work; the node lives in this process and
   * relays. The peer runs none of arbor's tools, so the tool narrowing holds trivially; it cannot
   * be held to a schema or a persona, and its own delegation is outside this tree.
   */
  a2a: {
    name: 'a2a',
    capabilities: {
      outputSchema: false,
      depthLimit: true,
      toolFilter: true,
      persona: false,
      tlsCa: false,
      inheritsParentContext: false,
    },
    start: () =>
      new InMemoryChild(
        { connectModel: (config, options) => createModelClient(config, options) },
        runA2aChild,
      ),
  },
};

/** What a spawn request asks of its provider. */
export interface CapabilityNeeds {
  outputSchema: boolean;
  toolFilter: boolean;
  persona: boolean;
  depthLimit: boolean;
  tlsCa?: boolean;
}

/** Refuses a request that needs a capability the provider lacks, naming it. */
export function requireCapabilities(provider: Provider, needs: CapabilityNeeds): void {
  const missing = (
    ['outputSchema', 'toolFilter', 'persona', 'depthLimit', 'tlsCa'] as const
  ).filter((flag) => needs[flag] === true && !provider.capabilities[flag]);
  if (missing.length > 0) {
    throw new ArborError(
      'usage',
      `provider \`${provider.name}\` cannot enforce ${missing.map((m) => `\`${m}\``).join(', ')}, which this request needs`,
      {
        details: { provider: provider.name, missing },
      },
    );
  }
}

/**
 * Where a node runs: with `processOnFleet`, every `process` node goes to the fleet; a node with a
 * working directory of its own (a plan leaf in its worktree) always runs here, where that is.
 */
export function placeNode(
  provider: ProviderName,
  cwd: string | undefined,
  options: { fleet?: FleetPort; processOnFleet?: boolean },
): ProviderName {
  if (cwd !== undefined) return provider === 'queue' ? 'process' : provider;
  return provider === 'process' && options.processOnFleet === true && options.fleet !== undefined
    ? 'queue'
    : provider;
}
