import { z } from 'zod';
import { lazyRecord } from './lazy-record.js';
import { IntelActiveSchema } from './intelligence.js';
import { RateLimitNameSchema } from './rate-limits.js';
import { TERMINAL_STATUSES } from './outcome.js';
import { MODEL_EVENT_MAKERS } from './run-events-model.js';

/**
 * Every event of a run, by type, with its fields as the API gives them (camelCase). This is the
 * one definition: the supervisor makes these events, the store, the API stream, traces and the CLI
 * read them, and a child's `event` frames are checked against them. The wire forms (a stored
 * event's `kind` and snake_case `data`, an NDJSON line, a child's frame) are the same data, see
 * `run-event-codec.ts`. Adding an event means adding it here: the union is closed.
 */

/** A node's life (`NodeStatus` of the store): not yet started, starting, running, paused, ended. */
export const NodeStatusSchema = z.enum([
  'pending',
  'spawning',
  'running',
  'paused',
  'parked',
  'interrupted',
  ...TERMINAL_STATUSES,
]);

/** An event with no fields of its own (`z.object({})` would type it as holding none at all). */
const empty = z.looseObject({});

/** The fields of each event type. */
/** How to make the fields schema of each event type (see `RUN_EVENT_FIELDS`). */
const FIELD_SCHEMA_MAKERS = {
  /** A node was minted through the chokepoint and its child is starting. */
  'node.spawned': () =>
    z.object({
      mode: z.string(),
      provider: z.string(),
      depth: z.number(),
      parent: z.string().optional(),
    }),
  /** A node's status changed (spawning, running, then how it ended). */
  'node.status': () => z.object({ status: NodeStatusSchema }),
  /** A node ended, with how (`result`, `failed`, `synthetic`, `resume`) and its exit code. */
  'node.end': () =>
    z.object({
      status: z.string(),
      via: z.string(),
      /** Absent for a node a resume settled without running it. */
      exitCode: z.number().nullable().optional(),
      reason: z.string().optional(),
      /** Protocol violations the child made, and lines it wrote past the limit, dropped unread. */
      violations: z.number().optional(),
      droppedLines: z.number().optional(),
    }),
  'node.restart': () => z.object({ attempt: z.number(), delayMs: z.number(), reason: z.string() }),
  /** A node whose fleet worker was lost is queued again (its `attempt`), from its transcript. */
  'node.requeue': () => z.object({ attempt: z.number(), reason: z.string() }),
  /** An interrupted node re-spawned by `arbor resume`, continuing its recorded transcript. */
  'node.resumed': () =>
    z.object({
      mode: z.string(),
      provider: z.string(),
      transcriptMessages: z.number(),
    }),
  /**
   * A node that only waited (on these tools, served by the supervisor) for `afterMs` was parked:
   * its child process exited, and it waits in the store.
   */
  'node.parked': () => z.object({ waiting: z.array(z.string()), afterMs: z.number() }),
  /**
   * A parked node woke: what it waited for arrived after `parkedMs`, and its new child was ready
   * `wakeMs` later, going on from its transcript.
   */
  'node.woken': () => z.object({ parkedMs: z.number(), wakeMs: z.number() }),
  /** A node that had finished before the crash, its recorded result given again on resume. */
  'node.reused': () => z.object({ status: z.string() }),
  /** A resumed node's first turn finishes the step that was in flight at the crash. */
  'loop.resumed_step': () => z.object({ toolCalls: z.number(), pending: z.number() }),
  /** A child reported a transcript change that is not one (it is not stored). */
  'transcript.invalid': () => z.object({ reason: z.string() }),
  /**
   * A child reported an event this arbor does not know, or one whose fields do not match its
   * schema: it is not stored or passed on. Recorded once per event name and node.
   */
  'event.invalid': () => z.object({ name: z.string(), reason: z.string() }),
  /**
   * Read back from a store: an event of a type this arbor does not know (recorded by another
   * version), its stored `name` and `fields` as they are. Never recorded.
   */
  'event.unknown': () => z.object({ name: z.string(), fields: z.record(z.string(), z.unknown()) }),
  'node.cancel': () => z.object({ reason: z.string() }),
  /** `pooled`: the child was started ahead of time, in a pool (`--pool`), and taken from it. */
  'child.ready': () =>
    z.object({
      attempt: z.number(),
      pid: z.number().optional(),
      pooled: z.boolean().optional(),
    }),
  'child.teardown': () => z.object({ reason: z.string() }),
  /** The kill ladder ran: its rungs, whether the child exited, and how long it took. */
  'child.killed': () =>
    z.object({
      reason: z.string(),
      steps: z.array(z.unknown()),
      exited: z.boolean(),
      durationMs: z.number(),
      forced: z.boolean(),
    }),
  /**
   * Run-level: which entry the run's process children start from (the start-up `snapshot`, or the
   * `bundle` and why), recorded once, before the first process child starts.
   */
  'child.entry': () =>
    z.object({
      entry: z.enum(['snapshot', 'bundle']),
      snapshot: z.string().optional(),
      reason: z.string().optional(),
      built: z.boolean().optional(),
      buildMs: z.number().optional(),
      warnings: z.array(z.string()).optional(),
    }),
  'protocol.violation': () =>
    z.object({
      code: z.string(),
      line: z.number(),
      reason: z.string(),
      excerpt: z.string(),
    }),
  'spawn.refused': () => z.object({ reason: z.string() }),
  /**
   * A spawn over the spawn rate, or over its caller's breadth, waits (`waitMs`: until the next
   * rate slot); `queued` spawns of the run wait now.
   */
  'spawn.waiting': () =>
    z.object({
      for: z.enum(['rate', 'breadth']),
      waitMs: z.number().optional(),
      reason: z.string(),
      queued: z.number(),
    }),
  /** The wait is over (the spawn then goes through the chokepoint again). */
  'spawn.waited': () => z.object({ for: z.enum(['rate', 'breadth']), waitedMs: z.number() }),
  'tools.gated': () => z.object({ gated: z.array(z.string()), routedServers: z.array(z.string()) }),
  'loop.step': () => z.object({ step: z.number() }),
  'loop.stop': () => z.object({ status: z.string(), reason: z.string().optional() }),
  'loop.paused': () => empty,
  'loop.resumed': () => z.object({ cancelled: z.boolean() }),
  ...MODEL_EVENT_MAKERS,
  /** A warm node answered a message. */
  turn: () => z.object({ status: z.string() }),
  'turn.outcome': () => z.object({ status: z.string() }),
  'turn.restarted': () => z.object({ reason: z.string() }),
  /**
   * A question waits for a person (ask_human, a policy `ask`, an egress approval), with what the
   * asker shows besides the question. Its NDJSON and stored name is `gate.open`.
   */
  'gate.opened': () =>
    z
      .object({
        gate: z.string().optional(),
        question: z.string().optional(),
        node: z.string().optional(),
        choices: z.array(z.string()).optional(),
        tool: z.string().optional(),
        args: z.unknown().optional(),
        /** A gate open when the supervisor died, asked again under its own id by the resumed run. */
        resumed: z.boolean().optional(),
      })
      .catchall(z.unknown()),
  'gate.closed': () =>
    z.object({
      gate: z.string().optional(),
      node: z.string().optional(),
      answered: z.boolean().optional(),
      via: z.string(),
    }),
  'policy.decision': () =>
    z.object({
      tool: z.string(),
      action: z.enum(['allow', 'deny', 'ask']),
      rule: z.number().optional(),
      reason: z.string(),
      failedClosed: z.boolean().optional(),
    }),
  'policy.answer': () => z.object({ tool: z.string(), approved: z.boolean(), via: z.string() }),
  /** The node's runtime trust changed (see `TrajectoryEventSchema`); other fields may come along (an `a2a` node names its `peer`). */
  trajectory: () =>
    z
      .object({
        exposed: z.boolean(),
        sensitive: z.boolean(),
        /** 0–1, rising with flagged content, refusals and failures, decaying each step. */
        risk: z.number().min(0).max(1),
        /** The first untrusted source that reached the node. */
        exposedBy: z.string().optional(),
        /** The first sensitive source the node read. */
        sensitiveBy: z.string().optional(),
      })
      .catchall(z.unknown()),
  'content.flagged': () =>
    z.object({ tool: z.string(), source: z.string(), rules: z.array(z.string()) }),
  'trifecta.held': () => z.object({ tool: z.string(), mode: z.string(), reason: z.string() }),
  'trifecta.answer': () => z.object({ tool: z.string(), approved: z.boolean() }),
  'intel.health': () => z.object({ allDown: z.boolean(), active: IntelActiveSchema.optional() }),
  /** A node's call waited `waitedMs` for a provider's rate limit (as its headers said), not a 429. */
  'intel.rate_wait': () =>
    z.object({ endpoint: z.number(), limit: RateLimitNameSchema, waitedMs: z.number() }),
  'intel.swap': () => z.object({ policy: z.string(), endpoints: z.number() }),
  'intel.swapped': () =>
    z.object({
      policy: z.string(),
      endpoints: z.number(),
      modelChanged: z.boolean(),
    }),
  'intel.swap_rejected': () => z.object({ reason: z.string() }),
  'budget.ceiling': () => z.object({ tokens: z.number(), usd: z.number().optional() }),
  /** Run-level: the exec sandbox is off (`--sandbox off`). */
  'sandbox.off': () => empty,
  /**
   * Run-level: the operator opted out of the egress proxy (`--sandbox-network host`): commands of
   * agents holding `net = "all"` share the host's network.
   */
  'sandbox.host_network': () => empty,
  /**
   * The egress proxy refused a connection of one of the node's commands (`command`, when it came
   * from one): the host and port asked for, and why.
   */
  'net.refused': () =>
    z.object({
      host: z.string(),
      port: z.number(),
      why: z.string(),
      command: z.string().optional(),
    }),
  /** What one command of the node moved through the egress proxy to one host, once it ended. */
  'net.traffic': () =>
    z.object({
      host: z.string(),
      port: z.number(),
      command: z.string(),
      connections: z.number(),
      bytesUp: z.number(),
      bytesDown: z.number(),
      ms: z.number(),
    }),
  /** Run-level: the sandbox was asked for and cannot work here. */
  'sandbox.unavailable': () => z.object({ reason: z.string() }),
  /** Run-level: a plan run is about to write its run-log at `path` (its digest). */
  'plan.run_log': () => z.object({ path: z.string(), sha256: z.string() }),
  /**
   * A plan leaf's verify gate ran after its node: whether it passed, and when it failed the
   * failure the leaf ended with (scrubbed). A replay serves it under recorded tool results.
   */
  'plan.verify': () =>
    z.object({ leaf: z.string(), passed: z.boolean(), result: z.string().optional() }),
  /** Run-level: an arbor took an interrupted run over (`owner`), with its active time so far. */
  'run.resumed': () => z.object({ activeMs: z.number(), nodes: z.number(), owner: z.unknown() }),
  /**
   * Run-level: the run's supervisor died; a later arbor marked it interrupted, with the gates that
   * were open (`openGates`).
   */
  'run.interrupted': () =>
    z.object({
      reason: z.string(),
      owner: z.unknown().optional(),
      openGates: z.array(z.string()).optional(),
    }),
  /**
   * Run-level, `arbor run --events ndjson` only: a warning Node raised in the supervisor's process
   * (its `name` and `message`), written among the run's events instead of as free text. Not stored.
   */
  'process.warning': () => z.object({ name: z.string(), message: z.string() }),
  /** A `queue` node's attempt was queued on the fleet as job `job`. */
  'fleet.queued': () =>
    z.object({ job: z.string(), attempt: z.number(), labels: z.array(z.string()) }),
  /**
   * A fleet worker took the job, and the node is bound to it: `name` is the worker's entry in the
   * supervisor's `[[queue.admit]]` and `keyId` its key's id (both absent in runs recorded before
   * workers had keys of their own).
   */
  'fleet.assigned': () =>
    z.object({
      job: z.string(),
      worker: z.string(),
      host: z.string(),
      attempt: z.number(),
      name: z.string().optional(),
      keyId: z.string().optional(),
    }),
  /** The worker holding the job was lost (it stalled, died, or said nothing after SIGKILL). */
  'fleet.lost': () => z.object({ job: z.string(), reason: z.string() }),
  /** An `a2a` node's remote task was created (or taken up) at its peer. */
  'a2a.task': () => z.object({ peer: z.string(), taskId: z.string(), state: z.string() }),
  /** The remote task's status, as the peer streamed it (`remoteEvent`: what an arbor peer did). */
  'a2a.status': () =>
    z.object({
      peer: z.string(),
      state: z.string(),
      remoteEvent: z.string().optional(),
    }),
} as const;

type FieldSchemas = {
  [K in keyof typeof FIELD_SCHEMA_MAKERS]: ReturnType<(typeof FIELD_SCHEMA_MAKERS)[K]>;
};

/**
 * The fields of each event type. Each schema is made the first time it is read: a run uses a few
 * of them, and a child (which starts often and checks none) should not pay for making them all.
 */
export const RUN_EVENT_FIELDS: FieldSchemas = lazyRecord(FIELD_SCHEMA_MAKERS);

/** Every event type. */
export type RunEventType = keyof FieldSchemas;

/** The fields of events of type `K`. */
export type RunEventFields<K extends RunEventType> = z.infer<FieldSchemas[K]>;

/** Where and when an event happened. */
export const EventBaseSchema = z.object({
  /** ISO 8601 time the supervisor saw it. */
  ts: z.string(),
  runId: z.string(),
  /** The node it is about; absent for run-level events. */
  nodeId: z.string().optional(),
  /** The node's path in the tree (`0.1`). */
  path: z.string().optional(),
});
export type EventBase = z.infer<typeof EventBaseSchema>;

type Member<K extends RunEventType> = { type: K } & EventBase & RunEventFields<K>;

/** Every event type, for validation and documentation. */
export const RUN_EVENT_TYPES = Object.keys(RUN_EVENT_FIELDS) as readonly RunEventType[];

/** One event of a run: its `type` says which, and which fields it has. */
export const RunEventSchema = z.lazy(() =>
  z.discriminatedUnion(
    'type',
    RUN_EVENT_TYPES.map((type) =>
      RUN_EVENT_FIELDS[type].extend({ type: z.literal(type) }).extend(EventBaseSchema.shape),
    ) as unknown as [z.ZodObject, ...z.ZodObject[]],
  ),
) as unknown as z.ZodType<{ [K in RunEventType]: Member<K> }[RunEventType]>;
export type RunEvent = z.infer<typeof RunEventSchema>;

/** The event of type `K`. */
export type RunEventOf<K extends RunEventType> = Extract<RunEvent, { type: K }>;

/**
 * An event as it is made, before it is placed (no `ts`, `runId`, `nodeId` or `path`): what the
 * supervisor records and a child reports.
 */
export type RunEventBody = { [K in RunEventType]: { type: K } & RunEventFields<K> }[RunEventType];

/** The event body of type `K`. */
export type RunEventBodyOf<K extends RunEventType> = Extract<RunEventBody, { type: K }>;

/**
 * An event of one of the types `K` as its type and its fields apart, for ports that report events
 * as `(type, fields)`: `record('fleet.lost', { job, reason })`.
 */
export type RunEventArgs<K extends RunEventType> = {
  [T in K]: [type: T, fields: RunEventFields<T>];
}[K];
