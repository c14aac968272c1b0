import type { NodeStatus } from '../supervisor/index.js';

/**
 * Every event a run reports, by name, with its fields as the API gives them (camelCase). The
 * NDJSON wire form (`event`, `run_id`, `node_id`, snake_case fields) is the same data; see
 * `event-codec.ts`. Adding an event means adding it here: the union is closed, so a consumer's
 * `switch` on `type` is checked by the compiler.
 */
export interface EventFields {
  /** A node was minted through the chokepoint and its child is starting. */
  'node.spawned': { mode: string; provider: string; depth: number; parent?: string };
  /** A node's status changed (spawning, running, then how it ended). */
  'node.status': { status: NodeStatus };
  /** A node ended, with how (`result`, `failed`, `synthetic`) and its exit code. */
  'node.end': {
    status: string;
    via: string;
    exitCode: number | null;
    reason?: string;
    /** Protocol violations the child made, and lines it wrote past the limit, dropped unread. */
    violations?: number;
    droppedLines?: number;
  };
  'node.restart': { attempt: number; delayMs: number; reason: string };
  /** An interrupted node re-spawned by `arbor resume`, continuing its recorded transcript. */
  'node.resumed': { mode: string; provider: string; transcriptMessages: number };
  /** A node that had finished before the crash, its recorded result given again on resume. */
  'node.reused': { status: string };
  /** A resumed node's first turn finishes the step that was in flight at the crash. */
  'loop.resumed_step': { toolCalls: number; pending: number };
  /** A child reported a transcript change that is not one (it is not stored). */
  'transcript.invalid': { reason: string };
  'node.cancel': { reason: string };
  /** `pooled`: the child was started ahead of time, in a pool (`--pool`), and taken from it. */
  'child.ready': { attempt: number; pid?: number; pooled?: boolean };
  'child.teardown': { reason: string };
  /** The kill ladder ran: its rungs, whether the child exited, and how long it took. */
  'child.killed': {
    reason: string;
    steps: unknown[];
    exited: boolean;
    durationMs: number;
    forced: boolean;
  };
  'protocol.violation': { code: string; line: number; reason: string; excerpt: string };
  'spawn.refused': { reason: string };
  /**
   * A spawn over the spawn rate, or over its caller's breadth, waits (`waitMs`: until the next
   * rate slot); `queued` spawns of the run wait now.
   */
  'spawn.waiting': { for: 'rate' | 'breadth'; waitMs?: number; reason: string; queued: number };
  /** The wait is over (the spawn then goes through the chokepoint again). */
  'spawn.waited': { for: 'rate' | 'breadth'; waitedMs: number };
  'tools.gated': { gated: string[]; routedServers: string[] };
  'loop.step': { step: number };
  'loop.stop': { status: string; reason?: string };
  'loop.paused': Record<string, never>;
  'loop.resumed': { cancelled: boolean };
  /** One model call, once its answer is complete. */
  'model.call': {
    step: number;
    endpoint: number;
    model: string;
    ms: number;
    inputTokens: number;
    outputTokens: number;
    finishReason: string;
    toolCalls: number;
    text?: string;
    textChars?: number;
  };
  /** An attempt at a model endpoint failed (it may be retried, or failed over). */
  'model.error': { endpoint: number; kind: string };
  /** A piece of a node's answer as the model writes it. */
  'text.delta': { step: number; text: string };
  /** The stream broke off and is being made again: drop this node's text since its last step. */
  'text.reset': { step: number; reason: string };
  'tool.call': { id: string; name: string; args?: Record<string, unknown> };
  'tool.result': {
    id: string;
    name: string;
    isError: boolean;
    /** arbor refused the call before the tool ran; absent: it ran. */
    refused?: boolean;
    ms: number;
    content?: unknown;
  };
  /** Tokens (and cost) of one model call of a node. */
  usage: { inputTokens: number; outputTokens: number; costUsd?: number };
  /** A warm node answered a message. */
  turn: { status: string };
  'turn.outcome': { status: string };
  'turn.restarted': { reason: string };
  /** A question waits for a person (ask_human, a policy `ask`, an egress approval). */
  'gate.opened': {
    gate?: string;
    question?: string;
    node?: string;
    choices?: string[];
    tool?: string;
    args?: unknown;
    /** A gate open when the supervisor died, asked again under its own id by the resumed run. */
    resumed?: boolean;
  };
  'gate.closed': { gate?: string; node?: string; answered?: boolean; via: string };
  'policy.decision': {
    tool: string;
    action: 'allow' | 'deny' | 'ask';
    rule?: number;
    reason: string;
    failedClosed?: boolean;
  };
  'policy.answer': { tool: string; approved: boolean; via: string };
  trajectory: { exposed: boolean; sensitive: boolean; risk: number; [key: string]: unknown };
  'content.flagged': { tool: string; source: string; rules: string[] };
  'trifecta.held': { tool: string; mode: string; reason: string };
  'trifecta.answer': { tool: string; approved: boolean };
  'intel.health': { allDown: boolean; active?: unknown };
  'intel.swap': { policy: string; endpoints: number };
  'intel.swapped': { policy: string; endpoints: number; modelChanged: boolean };
  'intel.swap_rejected': { reason: string };
  'budget.ceiling': { tokens: number; usd?: number };
  'sandbox.off': Record<string, never>;
  'sandbox.unavailable': { reason: string };
  'plan.run_log': { path: string; sha256: string };
  /** An `a2a` node's remote task was created (or taken up) at its peer. */
  'a2a.task': { peer: string; taskId: string; state: string };
  /** The remote task's status, as the peer streamed it (`remoteEvent`: what an arbor peer did). */
  'a2a.status': { peer: string; state: string; remoteEvent?: string };
}

export type ArborEventType = keyof EventFields;

/** Where and when an event happened. */
export interface EventBase {
  /** ISO 8601 time the supervisor saw it. */
  ts: string;
  runId: string;
  /** The node it is about; absent for run-level events. */
  nodeId?: string;
  /** The node's path in the tree (`n1/n3`). */
  path?: string;
}

/** One event of a run: its `type` says which, and which fields it has. */
export type ArborEvent = {
  [K in ArborEventType]: { type: K } & EventBase & EventFields[K];
}[ArborEventType];

/** The event of type `K`. */
export type ArborEventOf<K extends ArborEventType> = Extract<ArborEvent, { type: K }>;

/** Every event type, for validation and documentation. */
export const EVENT_TYPES = [
  'node.spawned',
  'node.status',
  'node.end',
  'node.restart',
  'node.resumed',
  'node.reused',
  'loop.resumed_step',
  'transcript.invalid',
  'node.cancel',
  'child.ready',
  'child.teardown',
  'child.killed',
  'protocol.violation',
  'spawn.refused',
  'spawn.waiting',
  'spawn.waited',
  'tools.gated',
  'loop.step',
  'loop.stop',
  'loop.paused',
  'loop.resumed',
  'model.call',
  'model.error',
  'text.delta',
  'text.reset',
  'tool.call',
  'tool.result',
  'usage',
  'turn',
  'turn.outcome',
  'turn.restarted',
  'gate.opened',
  'gate.closed',
  'policy.decision',
  'policy.answer',
  'trajectory',
  'content.flagged',
  'trifecta.held',
  'trifecta.answer',
  'intel.health',
  'intel.swap',
  'intel.swapped',
  'intel.swap_rejected',
  'budget.ceiling',
  'sandbox.off',
  'sandbox.unavailable',
  'plan.run_log',
  'a2a.task',
  'a2a.status',
] as const satisfies readonly ArborEventType[];

// Every member of the union is listed above: a type missing from the list fails to compile here.
type Missing = Exclude<ArborEventType, (typeof EVENT_TYPES)[number]>;
export const EVENT_TYPES_COMPLETE: [Missing] extends [never] ? true : Missing = true;
