import type { ReplaySource } from './replay-source.js';
import type { EgressHostLimits } from './launch/egress-host.js';
import type {
  Outcome,
  RunEvent,
  SecretScrubber,
  SpawnPayload,
  SpawnPayloadInput,
  Usage,
} from '../protocol/index.js';
import type { HostTool } from '../tools/index.js';
import type { PolicyRule } from '../authority/policy/index.js';
import type { BudgetSettings } from './budget/index.js';
import type { ChildEnd } from './node/child-end.js';
import type { ChildCommand } from './launch/child-entry.js';
import type { ChildPool } from './launch/child-pool.js';
import type { HumanResponder } from './gates/human-gates.js';
import type { FleetPort } from './launch/providers.js';
import type { ChokepointContext, SpawnLimits } from './spawn/spawn-chokepoint.js';
import type { ResumeState } from './resume/resume-state.js';
import type { RunStore } from '../store/store-port.js';
import type { Timing } from './timing.js';
import type { TreeNode } from './tree.js';

/**
 * What the supervisor tells its observers (the live display, NDJSON event output): a node's
 * display, a node's event (typed and placed, see `event-sink.ts`), its usage, a turn's outcome.
 */
export type SupervisorEvent =
  | { type: 'node'; node: TreeNode }
  | { type: 'event'; nodeId: string; event: RunEvent }
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
  /**
   * Workers on other machines, reached through BullMQ on Redis: nodes with the `queue` provider
   * run there (and every `process` node, with `processOnFleet`).
   */
  fleet?: FleetPort;
  /** Run on the fleet every node that would be a local process (`--provider queue`). */
  processOnFleet?: boolean;
  limits?: SpawnLimits;
  /** Spawn rate: at most `count` spawns per `perMs` across the run. */
  rate?: { count: number; perMs: number };
  /** Who answers `ask_human` and policy `ask` gates (default: nobody, the ask fails). */
  humans?: HumanResponder;
  /** `security.policies`: rules evaluated on every gated tool call. */
  rules?: readonly PolicyRule[];
  /** `security.allow_trifecta`: let a node hold untrusted input, sensitive data and egress. */
  allowTrifecta?: boolean;
  /** The tree's ceiling, how children's shares are carved, and windowed rate budgets. */
  budget?: BudgetSettings;
  /**
   * What each node's commands may hold open and move through the egress proxy (default: 64
   * connections at once, 4 GiB).
   */
  egress?: EgressHostLimits;
  /** Extra checks of a child's grant at the chokepoint; a string refuses. */
  checkGrant?: ChokepointContext['checkGrant'];
  /** Tools the host process defined, served by the supervisor to the nodes allowed them. */
  hostTools?: readonly HostTool[];
  /** How a child process is started (default: arbor's own child under this Node binary). */
  childCommand?: ChildCommand;
  /**
   * The run's secret scrubber, with the credentials of the host (serve tokens, the fleet key, a
   * Redis password) and of the run's intelligence; every payload minted adds its own. Every event,
   * outcome, record and streamed delta passes it. Default: credential shapes and minted payloads'
   * secrets only.
   */
  scrubber?: SecretScrubber;
  /** Continue an interrupted run from its records instead of starting a new tree. */
  resume?: ResumeState;
  /** Replay a recorded run: its nodes' answers (and tool results) come from its records. */
  replay?: ReplaySource;
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
