import {
  announcedTurns,
  outcomeOf,
  replayTranscript,
  turnAnnounced,
  type Outcome,
  type Caveats,
  type ToolCall,
  type TranscriptEntry,
  type TranscriptMessage,
} from '../../protocol/index.js';
import { SubagentRunArgs } from '../../tools/index.js';
import { CarriedGates, nextGateNumber, pendingGates } from './carried-gates.js';
import type { ChildEnd } from '../node/child-end.js';
import { LiveNode, type NodeMode } from '../node/live-node.js';
import type { ProviderName } from '../launch/providers.js';
import type { ResumeState } from './resume-state.js';
import type { RootTemplate } from '../supervisor-options.js';
import type { TreeNode } from '../tree.js';
import type { NodeRecord, RunStore } from '../../store/store-port.js';

/** A recorded node a parent's repeated spawn is matched to: finished, or to be re-spawned. */
export type Reattach =
  | { kind: 'ended'; record: NodeRecord; end: ChildEnd }
  | { kind: 'respawn'; record: NodeRecord; transcript: TranscriptMessage[] };

/** A child whose spawn had returned to its parent before the crash, and what the parent asked. */
export interface Returned {
  args: SubagentRunArgs;
  reattach: Reattach;
}

/** Modes whose spawn returns a handle at once, the child running on: re-spawned on their own. */
export const RUNS_ON: ReadonlySet<string> = new Set(['async', 'detached', 'warm']);

/** Where a warm sub-agent's conversation with its parent stood at the crash. */
export interface WarmState {
  /** The outcomes of the turns that had reached the supervisor, in order. */
  turns: Outcome[];
  /** How many of them the parent had read with `subagent.await`. */
  awaited: number;
  /** Messages the parent had sent that the sub-agent had not yet taken into its transcript. */
  unread: string[];
}

/** How a recorded node that is not run again ends: `cancelled`, with the reason. */
export function leftOver(record: NodeRecord, reason: string): Extract<Reattach, { kind: 'ended' }> {
  return {
    kind: 'ended',
    record,
    end: {
      outcome: outcomeOf('cancelled', null, reason),
      via: 'result',
      exit: { code: null, signal: null },
    },
  };
}

const ACTIVE = new Set(['pending', 'spawning', 'running', 'paused', 'parked', 'interrupted']);

/**
 * The recorded tree of an interrupted run, while it resumes. A parent re-spawned from its
 * transcript repeats the spawn of the step that was in flight (spawns whose results it had
 * recorded are not repeated); each repeated spawn is matched, in order, to the child it made
 * before the crash, by instruction: a child that had finished gives its recorded result and is not
 * run again; one that was running is re-spawned from its own transcript, under its own id.
 */
export class ResumedRun {
  readonly #runId: string;
  readonly #store: RunStore;
  readonly #records: Map<string, NodeRecord>;
  readonly #startOver: boolean;
  /** Recorded children of each parent not yet matched to a repeated spawn, in spawn order. */
  readonly #unclaimed = new Map<string, NodeRecord[]>();
  /** Each node's transcript entries as recorded before the crash, read once. */
  readonly #entries = new Map<string, TranscriptEntry[]>();

  constructor(runId: string, store: RunStore, state: ResumeState) {
    this.#runId = runId;
    this.#store = store;
    this.#records = new Map(state.nodes.map((n) => [n.id, n]));
    this.#startOver = state.startOver === true;
    const ordered = [...state.nodes].sort((a, b) => a.createdAt - b.createdAt);
    const retry = [...(state.retry ?? [])];
    const rootId = state.nodes.find((n) => n.parentId === undefined)?.id;
    for (const node of ordered) {
      if (node.parentId === undefined) continue;
      const again = retry.indexOf(node.instruction);
      if (again >= 0 && !this.isActive(node) && node.parentId === rootId) {
        retry.splice(again, 1);
        continue;
      }
      const siblings = this.#unclaimed.get(node.parentId) ?? [];
      siblings.push(node);
      this.#unclaimed.set(node.parentId, siblings);
    }
  }

  get nodes(): NodeRecord[] {
    return [...this.#records.values()];
  }

  record(nodeId: string): NodeRecord | undefined {
    return this.#records.get(nodeId);
  }

  /** Whether a node must run again (it had not ended when the supervisor died). */
  isActive(record: NodeRecord): boolean {
    return ACTIVE.has(record.status);
  }

  /** A node's transcript as recorded, ready to continue from; empty when it recorded none. */
  transcript(nodeId: string): TranscriptMessage[] {
    return replayTranscript(this.#recorded(nodeId));
  }

  /**
   * A node's transcript entries as recorded before the crash. Read once: each is read before its
   * node runs again (it is what the node resumes from), and never again after.
   */
  #recorded(nodeId: string): TranscriptEntry[] {
    let entries = this.#entries.get(nodeId);
    if (entries === undefined) {
      entries = this.#store.listTranscript(this.#runId, nodeId);
      this.#entries.set(nodeId, entries);
    }
    return entries;
  }

  /**
   * The outcome of a warm node's last turn when it was answered and announced before the crash:
   * its re-spawned child does not answer it again (see the payload's `resume.answered`).
   */
  answeredTurn(nodeId: string): Outcome | undefined {
    const entries = this.#recorded(nodeId);
    return turnAnnounced(entries) ? announcedTurns(entries).at(-1) : undefined;
  }

  /** Model calls a node made before the crash (its recorded assistant messages). */
  steps(nodeId: string): number {
    return this.transcript(nodeId).filter((m) => m.role === 'assistant').length;
  }

  /** The recorded child a parent's repeated spawn stands for, if any; each is matched once. */
  claim(parentId: string, instruction: string): Reattach | undefined {
    if (this.#startOver) return undefined;
    const siblings = this.#unclaimed.get(parentId);
    const at = siblings?.findIndex((n) => n.instruction === instruction) ?? -1;
    const record = at < 0 ? undefined : siblings?.splice(at, 1)[0];
    return record === undefined ? undefined : this.#reattach(record);
  }

  /**
   * The children whose spawn had returned to `parentId` before the crash (the result, naming the
   * child's handle, is in the parent's transcript): the parent will not ask for them again, and
   * may await them. Each is taken out of the matching of repeated spawns.
   */
  returned(parentId: string): Returned[] {
    const messages = this.transcript(parentId);
    const calls = callsById(messages);
    const siblings = this.#unclaimed.get(parentId) ?? [];
    const out: Returned[] = [];
    for (const message of messages) {
      // A failed child's result is an error result: it had returned all the same.
      if (message.role !== 'tool' || message.name !== 'subagent.run') continue;
      const at = siblings.findIndex((n) => n.id === fieldOf(message.content, 'handle'));
      const record = siblings[at];
      if (record === undefined) continue;
      const parsed = SubagentRunArgs.safeParse(calls.get(message.id)?.args);
      const args = parsed.success ? parsed.data : { instruction: record.instruction };
      siblings.splice(at, 1);
      out.push({ args, reattach: this.#reattach(record) });
    }
    return out;
  }

  /** Where the conversation of a parent with its warm sub-agent stood, from both transcripts. */
  warmState(parentId: string, childId: string): WarmState {
    const parent = this.transcript(parentId);
    const calls = callsById(parent);
    let awaited = 0;
    const sent: string[] = [];
    for (const message of parent) {
      if (message.role !== 'tool') continue;
      const args = calls.get(message.id)?.args;
      if (args?.handle !== childId) continue;
      if (message.name === 'subagent.await' && fieldOf(message.content, 'timed_out') !== true)
        awaited += 1;
      if (message.name === 'subagent.send' && !message.is_error && typeof args.message === 'string')
        sent.push(args.message);
    }
    // The sub-agent takes each message into its transcript as it starts answering it, in order.
    const taken = this.transcript(childId).flatMap((m) => (m.role === 'user' ? [m.text] : []));
    let at = 0;
    const unread = sent.filter((text) => {
      const found = taken.indexOf(text, at);
      if (found < 0) return true;
      at = found + 1;
      return false;
    });
    return {
      turns: announcedTurns(this.#recorded(childId)),
      awaited,
      unread,
    };
  }

  #reattach(record: NodeRecord): Reattach {
    if (this.isActive(record))
      return { kind: 'respawn', record, transcript: this.transcript(record.id) };
    return {
      kind: 'ended',
      record,
      end: {
        outcome:
          record.outcome ??
          outcomeOf(
            record.status === 'interrupted' ? 'crashed' : 'failed',
            null,
            record.error ?? 'no outcome was recorded',
          ),
        via: 'result',
        ...(record.error === undefined ? {} : { error: { message: record.error } }),
        exit: { code: null, signal: null },
      },
    };
  }

  /**
   * Records the grant a re-spawned node holds now: minted again at the chokepoint from its
   * resumed parent, it is what the record says, so a later resume starts from it.
   */
  recordGrant(record: NodeRecord, caveats: Caveats): void {
    this.#store.updateNode(this.#runId, record.id, { payload: { ...record.payload, caveats } });
  }

  /** The run's gates as a resume takes them: those carried over, and the next new gate's number. */
  gates(): { carried: CarriedGates; next: number } {
    const gates = this.#store.listGates({ runId: this.#runId });
    const pending = pendingGates(gates, this.#store.listEvents(this.#runId));
    return {
      carried: new CarriedGates(this.#store, this.#runId, pending),
      next: nextGateNumber(gates),
    };
  }

  /** Recorded nodes that were running and no resumed parent asked for again. */
  unclaimedActive(): NodeRecord[] {
    return [...this.#unclaimed.values()].flat().filter((n) => this.isActive(n));
  }
}

/** The tool calls a transcript's assistant messages made, by call id. */
function callsById(messages: readonly TranscriptMessage[]): Map<string, ToolCall> {
  return new Map(
    messages.flatMap((m) => (m.role === 'assistant' ? m.tool_calls.map((c) => [c.id, c]) : [])),
  );
}

/**
 * A string or boolean field of a `subagent.*` result, as the parent's transcript recorded it: the
 * result itself, or its JSON text when it was fenced as untrusted content (a sub-agent that read
 * untrusted content passes its answer up fenced). The first occurrence is the result's own: its
 * fields come before the sub-agent's answer.
 */
function fieldOf(content: unknown, key: string): unknown {
  if (typeof content === 'string') {
    const found = new RegExp(`"${key}":(true|false|"[^"\\\\]*")`).exec(content)?.[1];
    if (found === undefined) return undefined;
    return found === 'true' ? true : found === 'false' ? false : found.slice(1, -1);
  }
  if (typeof content !== 'object' || content === null) return undefined;
  return (content as Record<string, unknown>)[key];
}

/**
 * A node's payload template for its re-spawn after a crash: the transcript it recorded (if it
 * recorded any; else it starts over), and its step limit less the steps it already made.
 */
export function resumeTemplate<T extends RootTemplate>(
  template: T,
  node: TreeNode,
  transcript: TranscriptMessage[],
  answered?: Outcome,
): T {
  if (transcript.length === 0) return template;
  const maxSteps = template.limits?.max_steps;
  // A warm session's step limit is per turn: only the turn in flight has used some of it.
  const used = template.warm === true ? stepsOfLastTurn(transcript) : node.steps;
  return {
    ...template,
    ...(maxSteps === undefined
      ? {}
      : { limits: { ...template.limits, max_steps: Math.max(1, maxSteps - used) } }),
    resume: {
      transcript,
      ...(template.warm === true && answered !== undefined ? { answered } : {}),
    },
  };
}

/** Model calls made since the last message a warm session was given. */
function stepsOfLastTurn(transcript: readonly TranscriptMessage[]): number {
  const start = transcript.findLastIndex((m) => m.role === 'user');
  return transcript.slice(start + 1).filter((m) => m.role === 'assistant').length;
}

/** The live node a finished child stands as when its resumed parent asks for it again. */
export function endedChild(
  node: TreeNode,
  reattach: Extract<Reattach, { kind: 'ended' }>,
  mode: NodeMode,
): LiveNode {
  const child = new LiveNode(
    node,
    reattach.record.payload,
    mode,
    reattach.record.provider as ProviderName,
  );
  child.markEnded(reattach.end);
  return child;
}
