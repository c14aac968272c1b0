import { z } from 'zod';
import { CountSchema } from './primitives.js';

/**
 * A path that is part of the run's own state (the store and its journal files, arbor's state
 * directory, a plan's run-log): no node may write it, and none may read it when `readable` is
 * false, whatever its caveats say (`all` included). The supervisor mints the list into every
 * payload; a child inherits it whole, so it only ever grows down the tree.
 */
export const ProtectedPathSchema = z.object({
  /** An absolute path. */
  path: z.string().regex(/^\//, 'expected an absolute path'),
  /** A directory protects everything under it. */
  kind: z.enum(['file', 'dir']),
  /** May a node read it? The store never; a run-log or the state directory yes. */
  readable: z.boolean().default(false),
});
export type ProtectedPath = z.infer<typeof ProtectedPathSchema>;

/**
 * How `exec` and verify commands are contained. `bwrap`: each runs in a bubblewrap sandbox whose
 * mounts and network are the node's caveats. `unavailable`: bubblewrap could not be used on this
 * machine (`reason` says why), so a command runs only for a node whose every axis is
 * unrestricted. `off`: the operator opted out (`--sandbox off`); commands run with the user's
 * whole view of the machine.
 */
export const SandboxSettingsSchema = z.object({
  mode: z.enum(['bwrap', 'unavailable', 'off']).default('bwrap'),
  /**
   * Absolute path of the `bwrap` binary, found and checked by the supervisor (never on `PATH`);
   * absent: the first trusted one in the system directories.
   */
  bwrap: z.string().min(1).optional(),
  /** Where `bwrap` came from (`from /usr/bin`, `from ARBOR_BWRAP`), for `arbor doctor` and events. */
  origin: z.string().optional(),
  reason: z.string().optional(),
  /**
   * Where a command's network goes (absent: `proxy`). `proxy`: a namespace of its own whose only way out is the
   * node's egress proxy, which enforces `net`. `host`: the operator's opt-out for the whole run — a
   * command of a node whose `net` is `all` shares the host's namespace (loopback, private ranges
   * and abstract sockets included); a node with a host list still goes through the proxy.
   */
  network: z.enum(['proxy', 'host']).optional(),
});
export type SandboxSettings = z.infer<typeof SandboxSettingsSchema>;

/**
 * A node's egress proxy, minted by whoever runs the node (the supervisor, or the fleet worker that
 * hosts it): `control` is the Unix socket, outside every sandbox, where the node's child asks for
 * one session per command. Absent: its commands have no network.
 */
export const EgressSchema = z.object({
  control: z.string().regex(/^\//, 'expected an absolute path'),
});
export type Egress = z.infer<typeof EgressSchema>;

/** What the runtime trifecta does when a node that is exposed and sensitive calls an egress tool. */
export const RuntimeTrifectaModeSchema = z.enum(['ask', 'deny', 'off']);
export type RuntimeTrifectaMode = z.infer<typeof RuntimeTrifectaModeSchema>;

/**
 * The runtime trifecta and the trajectory risk score, as the child applies them. A node becomes
 * *exposed* when untrusted content reaches it and *sensitive* once it reads a sensitive source;
 * exposed and sensitive together, or a risk score at `risk_ask_at` or above, hold its egress
 * calls for a human's yes (`ask`), refuse them (`deny`), or let them run (`off`).
 */
export const RuntimeTrifectaSchema = z.object({
  mode: RuntimeTrifectaModeSchema.default('ask'),
  /** Glob patterns of sensitive files, on top of the built-in list (`security.sensitive_paths`). */
  sensitive_paths: z.array(z.string().min(1)).default([]),
  /** The risk score (0–1) at which egress is held as if the trifecta were complete; 1 never. */
  risk_ask_at: z.number().gt(0).max(1).default(0.8),
});
export type RuntimeTrifecta = z.infer<typeof RuntimeTrifectaSchema>;

/** What a child starts out holding, from its parent: a spawn is not a free reset. */
export const TaintSchema = z.object({
  exposed: z.boolean().default(false),
  sensitive: z.boolean().default(false),
});
export type Taint = z.infer<typeof TaintSchema>;

/** How untrusted content (tool output, peer messages) is handled before the model sees it. */
export const ContentIsolationSchema = z.object({
  enabled: z.boolean().default(true),
  /** Wrap untrusted content in a boundary that marks it as data, not instructions. */
  spotlight: z.boolean().default(true),
  /** Longest untrusted text passed on, in bytes; the rest is cut with a marker. */
  max_content_bytes: CountSchema.default(65_536),
  /**
   * The run's boundary marker: random per run, so a text cannot close the boundary it sits in.
   * A child without one makes its own.
   */
  marker: z
    .string()
    .regex(/^[A-Za-z0-9]{8,64}$/, 'expected 8-64 letters and digits')
    .optional(),
  /** Tool patterns whose results count as untrusted on top of the built-in sources. */
  untrusted_tools: z.array(z.string().min(1)).default([]),
});
export type ContentIsolation = z.infer<typeof ContentIsolationSchema>;

/**
 * The `trajectory` event a child sends up whenever its runtime trifecta state or risk score
 * changes: the supervisor keeps the latest per node for policy rules, the live tree and records.
 */
export const TrajectoryEventSchema = z.object({
  exposed: z.boolean(),
  sensitive: z.boolean(),
  /** 0–1, rising with flagged content, refusals and failures, decaying each step. */
  risk: z.number().min(0).max(1),
  /** The first untrusted source that reached the node. */
  exposed_by: z.string().optional(),
  /** The first sensitive source the node read. */
  sensitive_by: z.string().optional(),
});
export type TrajectoryEvent = z.infer<typeof TrajectoryEventSchema>;

/** The `content.flagged` event: untrusted content that looks like a prompt injection. */
export const ContentFlaggedEventSchema = z.object({
  tool: z.string(),
  /** Where the content came from: a URL, `mcp:<server>`, … */
  source: z.string(),
  /** The detector rules that fired, in order. */
  rules: z.array(z.string()).min(1),
});
export type ContentFlaggedEvent = z.infer<typeof ContentFlaggedEventSchema>;
