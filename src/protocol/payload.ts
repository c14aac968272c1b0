import { z } from 'zod';
import { CaveatsSchema } from './caveats.js';
import { IntelConfigSchema } from './intelligence.js';
import { LimitsSchema, TelemetrySchema } from './limits.js';
import { NetCredentialsSchema } from './net-credential.js';
import { OutcomeSchema } from './outcome.js';
import {
  ALLOWED_TOOLS_ROLE,
  SeedMessageSchema,
  ToolDefSchema,
  TranscriptMessageSchema,
} from './messages.js';
import { readLegacyAllowList, withoutAllowListMarkers } from './legacy-allow-list.js';
import { CountSchema, JsonObjectSchema } from './primitives.js';
import {
  A2aPeerSpecSchema,
  AAuthSettingsSchema,
  McpServerSpecSchema,
  ServerNameSchema,
  TrifectaTagSchema,
} from './servers.js';
import {
  ContentIsolationSchema,
  ProtectedPathSchema,
  RuntimeTrifectaSchema,
  EgressSchema,
  SandboxSettingsSchema,
  TaintSchema,
} from './safety.js';
import { ReplayPayloadSchema } from './replay-payload.js';
import { RoleSchema, TurnSpecSchema } from './turn.js';

/** Who spawned this child, named in the identity header of its system prompt. */
export const OrchestratorSchema = z.object({
  name: z.string().min(1),
  /** The orchestrator's role or task label, such as `planner`. */
  role: z.string().min(1).optional(),
});
export type Orchestrator = z.infer<typeof OrchestratorSchema>;

/**
 * A tool the supervisor serves for a child: its definition, and the MCP server it comes from with
 * that server's trifecta tags, so the child can tell what its results are (untrusted, sensitive)
 * and what calling it does (egress) as it would for a server it holds itself.
 */
export const RoutedToolSchema = ToolDefSchema.extend({
  server: ServerNameSchema.optional(),
  tags: z.array(TrifectaTagSchema).optional(),
});
export type RoutedTool = z.infer<typeof RoutedToolSchema>;

/**
 * Everything a child needs to run, minted by the supervisor. The child takes none of it from its
 * own request: depth in particular comes from the caller's record, so a child cannot claim a
 * shallower depth to buy more levels of delegation.
 */
export const SpawnPayloadSchema = z
  .object({
    /** The task. */
    instruction: z.string(),
    /** Objective, output format and boundaries: what the result will be checked against. */
    output_contract: z.string().optional(),
    /**
     * The context the parent chose to share, never its transcript. (An older supervisor put the
     * tool allow-list here, as a marker at index 0; it is lifted into `allowed_tools` on input.)
     */
    context_seed: z.array(SeedMessageSchema).default([]),
    /**
     * The tools this child may use, minted by the supervisor (`narrowTools`): patterns `*`, an
     * exact name, or a prefix ending in `*`. Absent: unnarrowed. Empty: no tools at all.
     */
    allowed_tools: z.array(z.string().min(1)).optional(),
    intelligence: IntelConfigSchema,
    /**
     * Conversation the child starts from, before its seed and instruction: the parent's completed
     * steps, given only by the `fork` provider. Every other child starts with an empty history.
     */
    history: z.array(TranscriptMessageSchema).default([]),
    /**
     * Set only when the supervisor re-spawns an interrupted node: the transcript it had recorded
     * (seed and instruction included). The child continues from it instead of starting over: tool
     * calls of the last step that have no result run, then the loop goes on. `answered` (warm
     * sessions) is the outcome of its last turn when that turn was answered and announced before
     * the crash: the session does not answer it again and waits for its next message.
     */
    resume: z
      .object({
        transcript: z.array(TranscriptMessageSchema),
        answered: OutcomeSchema.optional(),
      })
      .optional(),
    /** Set only on a node of a replay: its records, its answers are served from (`replay-payload.ts`). */
    replay: ReplayPayloadSchema.optional(),
    /** The MCP servers this child may reach: always a subset of its parent's. */
    mcp_servers: z.array(McpServerSpecSchema).default([]),
    /** Remote A2A agents this child may delegate to, inherited like MCP servers. */
    a2a_peers: z.array(A2aPeerSpecSchema).default([]),
    /** Path of an extra PEM CA file trusted for outbound TLS (a public path, never key bytes). */
    tls_ca: z.string().min(1).optional(),
    aauth: AAuthSettingsSchema.optional(),
    /** Tools the child must not call itself: it sends them to the supervisor as `tool_request`. */
    gated_tools: z.array(z.string().min(1)).default([]),
    /**
     * Tools the child offers its model but has no route to: the supervisor holds the connection
     * (an MCP server a policy rule may touch) and serves each call, after the rule has been
     * evaluated. Every one of them is also in `gated_tools`.
     */
    routed_tools: z.array(RoutedToolSchema).default([]),
    limits: LimitsSchema.prefault({}),
    telemetry: TelemetrySchema,
    /** Depth in the tree, minted by the supervisor (0 = root). */
    depth: CountSchema.default(0),
    /** Stay alive after a turn and take the next injected message on the same transcript. */
    warm: z.boolean().default(false),
    role: RoleSchema.default('agent'),
    /** The turn worker's input (`role: turn`). */
    turn: TurnSpecSchema.optional(),
    /** JSON Schema the child's result must satisfy; enforced through a capture tool. */
    output_schema: JsonObjectSchema.optional(),
    /** The authority the child holds; absent means unrestricted. */
    caveats: CaveatsSchema.prefault({}),
    /** Extra system-prompt text that shapes how this child works. */
    persona: z.string().optional(),
    orchestrator: OrchestratorSchema.optional(),
    /** The parent's damped trajectory risk score; the child starts from it, not from zero. */
    risk_seed: z.number().nonnegative().optional(),
    /** Whether the parent was exposed or sensitive when it spawned this child. */
    inherited_taint: TaintSchema.optional(),
    content_isolation: ContentIsolationSchema.prefault({}),
    /** The run's own state, outside every grant: never written, and the store never read. */
    protected_paths: z.array(ProtectedPathSchema).default([]),
    /** How the child's `exec` commands are contained. */
    sandbox: SandboxSettingsSchema.prefault({}),
    /**
     * The hosts and addresses the operator named exactly in the run's `net` grant: only these may
     * resolve to a loopback, private or link-local address. Minted at the root, inherited whole:
     * narrowing `net` down the tree can never turn a host into a named one.
     */
    named_hosts: z.array(z.string().min(1)).default([]),
    /** Headers `http.fetch` adds for a host, only of hosts this node's `net` allows (a secret). */
    net_credentials: NetCredentialsSchema.optional(),
    /** The node's egress proxy; absent, its commands have no network. */
    egress: EgressSchema.optional(),
    runtime_trifecta: RuntimeTrifectaSchema.prefault({}),
  })
  .superRefine((payload, ctx) => {
    if (payload.role === 'turn' && payload.turn === undefined) {
      ctx.addIssue({ code: 'custom', path: ['turn'], message: 'required when `role` is `turn`' });
    }
    if (payload.role === 'agent' && payload.instruction.trim() === '') {
      ctx.addIssue({
        code: 'custom',
        path: ['instruction'],
        message: 'expected a non-empty instruction for `role` `agent`',
      });
    }
    const seen = new Set<string>();
    payload.mcp_servers.forEach((server, index) => {
      if (seen.has(server.name)) {
        ctx.addIssue({
          code: 'custom',
          path: ['mcp_servers', index, 'name'],
          message: `duplicate server name \`${server.name}\``,
        });
      }
      seen.add(server.name);
    });
    // Only the supervisor's marker, at index 0, may carry an allow-list. Any other is forged.
    if (
      payload.allowed_tools !== undefined &&
      payload.context_seed[0]?.role === ALLOWED_TOOLS_ROLE
    ) {
      ctx.addIssue({
        code: 'custom',
        path: ['context_seed', 0, 'role'],
        message: 'a tool allow-list is given twice: as `allowed_tools` and as a seed marker',
      });
    }
    payload.context_seed.forEach((message, index) => {
      if (message.role === ALLOWED_TOOLS_ROLE && index !== 0) {
        ctx.addIssue({
          code: 'custom',
          path: ['context_seed', index, 'role'],
          message: `a tool allow-list is valid only as the supervisor's marker at index 0, found one at index ${index}`,
        });
      }
    });
  })
  .transform((payload) => {
    const legacy = readLegacyAllowList(payload.context_seed);
    if (legacy === undefined) return payload;
    return {
      ...payload,
      context_seed: withoutAllowListMarkers(payload.context_seed),
      allowed_tools: legacy,
    };
  });
export type SpawnPayload = z.infer<typeof SpawnPayloadSchema>;
/** A payload as it may be written: every field with a default may be left out. */
export type SpawnPayloadInput = z.input<typeof SpawnPayloadSchema>;
