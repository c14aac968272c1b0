import type { z } from 'zod';
import type {
  Dialect,
  McpServerSpecSchema,
  ModelPrice,
  RuntimeTrifectaMode,
  Sampling,
  Scope,
} from '../protocol/index.js';
import type { BudgetWindowSchema } from '../supervisor/index.js';
import type { HostTool } from '../tools/index.js';
import type { PolicyRuleSchema } from '../authority/policy/index.js';
import type { GateQuestion } from './gate-answers.js';

/** A `[[security.policy]]` rule, written as in the config file. */
export type PolicyRuleInput = z.input<typeof PolicyRuleSchema>;
/** An `[[mcp.server]]` table, written as in the config file. */
export type McpServerInput = z.input<typeof McpServerSpecSchema>;
/** A `[[budget.window]]` table, written as in the config file. */
export type BudgetWindowInput = z.input<typeof BudgetWindowSchema>;

/**
 * A `[[net.credential]]` table, written as in the config file: `http.fetch` sends `header` with
 * the value `value` refers to on requests to `host`; no model, transcript or record sees the value.
 */
export interface NetCredentialOption {
  /** A host name or address, exactly, optionally with `:PORT`. */
  host: string;
  /** Such as `authorization`. */
  header: string;
  /** `env:NAME` (read from `env`) or `file:/absolute/path`: never the value itself. */
  value: string;
}

/** One model endpoint. A key given here is held in memory only: never stored, logged or sent in an event. */
export interface EndpointOption {
  url: string;
  dialect?: Dialect;
  /** The model name at this endpoint, when it differs. */
  model?: string;
  /** The API key itself. */
  apiKey?: string;
  /** Where the key comes from instead: `env:NAME`. */
  credential?: string;
  headers?: Record<string, string>;
}

/** The model and how to reach it (the config file's `[intelligence]`). */
export interface IntelligenceOption {
  /** In failover order: URLs, or endpoint objects. */
  endpoints: (string | EndpointOption)[];
  model: string;
  dialect?: Dialect;
  /** Timeout of one model call (`30s`). */
  timeout?: string;
  retries?: number;
  sampling?: Sampling;
  /** USD per million tokens, by model name, over the default price table (docs/budget.md). */
  prices?: Record<string, ModelPrice>;
  breaker?: { threshold?: number; cooldown?: string; cooldownMax?: string };
  swapPolicy?: 'finish-on-old' | 'restart-turn';
}

/** Step, token, time and delegation caps (the config file's `[limits]`). */
export interface LimitsOption {
  maxSteps?: number;
  maxTokens?: number;
  /** The run's deadline (`2m`); a run's own `deadline` option overrides it. */
  deadline?: string;
  maxDepth?: number;
  maxBreadth?: number;
  maxTotal?: number;
  /** Spawns that may wait at once for the spawn rate or a caller's breadth (default 64). */
  maxQueued?: number;
  /** Spawns allowed per period across the run (`8/2s`). */
  spawnRate?: string;
}

/** What the root, and so every descendant, may touch (the config file's `[grant]`). */
export interface GrantOption {
  fsRead?: Scope;
  fsWrite?: Scope;
  exec?: Scope;
  net?: Scope;
  maxCalls?: number | 'unlimited';
}

/** Sandbox, trifecta and tool-call policy (the config file's `[security]`); rules as written there. */
export interface SecurityOption {
  allowTrifecta?: boolean;
  policy?: PolicyRuleInput[];
  sandbox?: 'auto' | 'required' | 'off';
  runtimeTrifecta?: RuntimeTrifectaMode;
  sensitivePaths?: string[];
  riskAskAt?: number;
  untrustedTools?: string[];
}

/** The tree's money ceiling and rate windows (the config file's `[budget]`). */
export interface BudgetOption {
  usd?: number;
  onExcess?: 'clamp' | 'refuse';
  /** Wait for the providers' rate limits as responses report them (`pace`, the default), or not. */
  providerLimits?: 'pace' | 'ignore';
  window?: BudgetWindowInput[];
}

/**
 * How an `Arbor` is opened. The sections are those of the config file (`arbor config schema`),
 * with camelCase keys; `config` reads a file first and these options go over it.
 */
export interface ArborOptions {
  intelligence?: IntelligenceOption;
  /** The run store's path, or `:memory:` (default `.arbor/arbor.db`). */
  store?: string;
  /** Tools the host defines (`defineTool`), served to every node whose allow-list includes them. */
  tools?: readonly HostTool[];
  limits?: LimitsOption;
  grant?: GrantOption;
  /** MCP servers the root holds; children get subsets. */
  mcp?: McpServerInput[];
  /** Headers `http.fetch` adds for a host (`[[net.credential]]`); a node holds those its `net` allows. */
  netCredentials?: NetCredentialOption[];
  security?: SecurityOption;
  budget?: BudgetOption;
  /** A TOML config file read first (as `arbor run --config`). */
  config?: string;
  /** The environment credentials are read from and children inherit a safe part of (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  /** Working directory of runs; the default grant is confined to it (default `process.cwd()`). */
  cwd?: string;
  /** A child program to start instead of arbor's own, speaking protocol v1 (`ARBOR_CHILD_COMMAND`). */
  childCommand?: string | { command: string; args?: string[] };
  /**
   * Answers a question an agent asks (ask_human, a policy `ask`, an egress approval). Without it,
   * a question waits for `run.answerGate` (or `arbor gate answer`).
   */
  onAsk?: (question: GateQuestion) => Promise<string> | string;
}

/** Options of one run. */
export interface RunOptions {
  /** This run's deadline (`2m`, or milliseconds). */
  deadline?: string | number;
  maxSteps?: number;
  /** Keep the root alive after its answer; send it more with `run.send`. */
  warm?: boolean;
  /** Aborting it cancels the run. */
  signal?: AbortSignal;
  /** A caller's W3C `traceparent`: with tracing on, the run's trace continues the caller's. */
  traceparent?: string;
  /**
   * Paths this run may read besides the instance's grant, added to its `fs_read` (relative to
   * `cwd`): the files a caller sent with an `arbor serve` task. arbor's own state stays hidden.
   */
  grantRead?: readonly string[];
  /**
   * Narrows the instance's grant for this run, axis by axis (never widens it): each axis given
   * meets the instance's. Paths are taken relative to the instance's `cwd`.
   */
  grant?: Pick<GrantOption, 'fsRead' | 'fsWrite' | 'exec' | 'net'>;
  /** Lowers the tree's ceilings for this run (never raises them): tokens, and USD. */
  budget?: { tokens?: number; usd?: number };
}

/** Options of a resume: the run's record is kept, and may only be narrowed or extended in time. */
export interface ResumeOptions {
  /** Replaces the recorded deadline, counted from when the run started being active (`2m`, or milliseconds). */
  deadline?: string | number;
  /**
   * Narrows the recorded grant, axis by axis (never widens it): each axis given meets the
   * recorded one. Paths are taken relative to the instance's `cwd`.
   */
  grant?: Pick<GrantOption, 'fsRead' | 'fsWrite' | 'exec' | 'net'>;
  /** Aborting it cancels the run. */
  signal?: AbortSignal;
}

/** Options of a replay (`Arbor.replay`): see docs/replay.md. */
export interface ReplayOptions {
  /** `recorded` (default): tool results from the record, nothing runs; `live`: tools run again. */
  tools?: 'recorded' | 'live';
  /** After a divergence a node goes on live, with this instance's intelligence, instead of failing. */
  continueLive?: boolean;
  /** A fork: `PATH@STEP` (`0.2@3`): that node's model call STEP and every later one run live. */
  from?: string;
  /**
   * Narrows the recorded grant, axis by axis. A run imported from a file runs its tools live only
   * under a grant given here.
   */
  grant?: Pick<GrantOption, 'fsRead' | 'fsWrite' | 'exec' | 'net'>;
  /** Aborting it cancels the replay. */
  signal?: AbortSignal;
}

/** Options of one plan run. */
export interface PlanRunOptions {
  /** Leaves at once (default 4). */
  concurrency?: number;
  /** On a failed leaf: `stop` scheduling (default), or `continue` with what does not depend on it. */
  onFailure?: 'stop' | 'continue';
  /** Each leaf in its own git worktree, merged at the end. */
  worktrees?: boolean;
  /** Timeout of a leaf's verify command (`5m`, or milliseconds). */
  verifyTimeout?: string | number;
  deadline?: string | number;
  maxSteps?: number;
  signal?: AbortSignal;
  /** Resuming a run-log: the authored plan it came from (default: found next to it). */
  authoredPlan?: string;
  /** Narrows the instance's grant for this plan run (as `RunOptions.grant`; never widens). */
  grant?: RunOptions['grant'];
  /** Lowers the tree's ceilings for this plan run (as `RunOptions.budget`; never raises). */
  budget?: RunOptions['budget'];
}
