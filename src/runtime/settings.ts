import {
  DEFAULT_LIMITS,
  type A2aPeerSpec,
  type Caveats,
  type McpServerSpec,
  type NetCredential,
  type RuntimeTrifecta,
  type SwapPolicy,
} from '../protocol/index.js';
import type { BudgetSettings, EgressHostLimits } from '../supervisor/index.js';
import type { PolicyRule } from '../authority/policy/index.js';

/** How commands are contained: bubblewrap where it works, bubblewrap or fail, or none at all. */
export type SandboxChoice = 'auto' | 'required' | 'off';

/** The run's security settings beyond the grant, from `[security]` and `--sandbox`. */
export interface SecuritySettings {
  sandbox: SandboxChoice;
  runtimeTrifecta: RuntimeTrifecta;
  /** Tool patterns whose results count as untrusted (`security.untrusted_tools`). */
  untrustedTools: string[];
  /** bubblewrap's path when not in the system directories (`security.bwrap`; `ARBOR_BWRAP` wins). */
  bwrap?: string;
  /** git's path when not in the system directories (`security.git`; `ARBOR_GIT` wins). */
  git?: string;
  /** Where sandboxed commands' network goes (`security.network`, `--sandbox-network`). */
  network: 'proxy' | 'host';
  /** Each node's egress limits (`security.egress_max_connections`, `egress_max_bytes`). */
  egress: EgressHostLimits;
}

/**
 * Everything that shapes one run, validated: what `arbor run` resolves from flags, config and
 * environment, and what the library builds from `Arbor.open` and `run` options.
 */
export interface RunConfig {
  instruction: string;
  swapPolicy: SwapPolicy;
  maxSteps: number;
  deadlineMs: number | undefined;
  maxDepth: number;
  maxBreadth: number;
  maxTotal: number;
  /** Spawns that may wait at once for the spawn rate or a caller's breadth. */
  maxQueued: number;
  spawnRate: { count: number; perMs: number };
  /** The run's grant: every node holds at most this. */
  grant: Caveats;
  /** MCP servers the root holds (secret references resolved by `resolveServerSecrets`). */
  mcpServers: McpServerSpec[];
  /** Remote A2A agents the root holds (`[[a2a.peer]]`); children get subsets. */
  a2aPeers?: A2aPeerSpec[];
  /** Headers `http.fetch` adds for a host (`[[net.credential]]`), values resolved: secrets. */
  netCredentials?: NetCredential[];
  rules: PolicyRule[];
  allowTrifecta: boolean;
  security: SecuritySettings;
  /** The tree's ceiling, excess handling and rate windows. */
  budget: BudgetSettings;
  /** Keep the root alive after its answer for the next message (a session). */
  warm: boolean;
  /** The store's path, subtracted from every grant. */
  dbPath: string;
  /** Run on the runtime's fleet every node that would be a local process (`--provider queue`). */
  processOnFleet?: boolean;
}

/**
 * arbor's defaults, in one place: `arbor run`, `arbor plan run` and the library all use them. The
 * limits are `DEFAULT_LIMITS` (protocol/default-limits.ts), which the supervisor falls back on too.
 */
export const DEFAULTS = {
  ...DEFAULT_LIMITS,
  askFallback: 'fail',
  swapPolicy: 'finish-on-old',
  sandbox: 'auto',
} as const satisfies {
  maxSteps: number;
  maxDepth: number;
  maxBreadth: number;
  maxTotal: number;
  maxQueued: number;
  spawnRate: { count: number; perMs: number };
  askFallback: 'fail' | 'wait';
  swapPolicy: SwapPolicy;
  sandbox: SandboxChoice;
  budget: BudgetSettings;
};
