import {
  readChildEvent,
  TRANSCRIPT_EVENT,
  type AgentFrame,
  type ChildEvent,
  type Outcome,
} from '../../protocol/index.js';
import { killPoint } from '../launch/kill-points.js';
import type { NodeEnvironment, NodeOwner } from './node-lifecycle.js';
import { NodeDeltas } from './node-deltas.js';
import { NodeTranscript } from './node-transcript.js';
import type { TreeNode } from '../tree.js';

type EventFrame = Extract<AgentFrame, { type: 'event' }>;

/** Distinct names of invalid events a node's `event.invalid` records name, at most. */
const INVALID_NAMES_RECORDED = 32;

/**
 * A node's `event` frames, from the edge in. Its transcript changes go to the store; every other
 * event is checked against its schema here, once (`readChildEvent`), and typed from then on: the
 * streamed answer (`text.delta`) goes to watchers only, scrubbed as it streams; the rest is folded
 * into the node and recorded. A frame that does not check is not recorded or passed on:
 * `event.invalid` says why, once per name.
 */
export class NodeEvents {
  readonly #env: Pick<NodeEnvironment, 'store' | 'runId' | 'scrub' | 'now'>;
  readonly #owner: Pick<NodeOwner, 'record' | 'stream'>;
  readonly #node: TreeNode;
  /** The node's transcript on its way into the store (made on first use). */
  #transcript: NodeTranscript | undefined;
  /** The node's streamed answer, scrubbed on its way to watchers. */
  readonly #deltas: NodeDeltas;
  /** Names of the child's events that were not recorded (`event.invalid` said so once). */
  readonly #invalidNames = new Set<string>();

  constructor(
    env: Pick<NodeEnvironment, 'store' | 'runId' | 'scrub' | 'now'>,
    owner: Pick<NodeOwner, 'record' | 'stream'>,
    node: TreeNode,
  ) {
    this.#env = env;
    this.#owner = owner;
    this.#node = node;
    this.#deltas = new NodeDeltas(env.scrub, (delta) => {
      owner.stream(node, { type: 'text.delta', ...delta });
    });
  }

  frame(frame: EventFrame): void {
    if (frame.event === TRANSCRIPT_EVENT) {
      this.#recordTranscript().take(frame.fields);
      return;
    }
    const read = readChildEvent(frame.event, frame.fields);
    // Deltas are for watchers only: the answer is stored whole, once, with the node's outcome.
    if (read.ok && read.event.type === 'text.delta') {
      this.#deltas.push(read.event);
      return;
    }
    // The step's streamed text has ended: what the scrubber held back goes out first.
    this.#deltas.end(read.ok && read.event.type === 'text.reset');
    if (read.ok) this.#onEvent(read.event);
    else this.#onInvalid(frame.event, read.reason);
  }

  /** The node's streamed text has ended (a turn, the node's end): what is held goes out. */
  endText(): void {
    this.#deltas.end(false);
  }

  /** A warm node's turn ended with `outcome`: its transcript says so. */
  turn(outcome: Outcome): void {
    this.#recordTranscript().turn(outcome);
  }

  /** A run event the child reported, checked: folded into the node, then recorded. */
  #onEvent(event: ChildEvent): void {
    const node = this.#node;
    if (event.type === 'loop.step') node.steps += 1;
    if (event.type === 'tool.result' && event.refused === true)
      node.refusedCalls = (node.refusedCalls ?? 0) + 1;
    if (event.type === 'trajectory') {
      const { exposed, sensitive, risk, exposedBy, sensitiveBy } = event;
      node.trajectory = this.#env.scrub.deep({
        exposed,
        sensitive,
        risk,
        ...(exposedBy === undefined ? {} : { exposed_by: exposedBy }),
        ...(sensitiveBy === undefined ? {} : { sensitive_by: sensitiveBy }),
      });
    }
    this.#owner.record(node, event);
    if (event.type === 'model.call') killPoint('model-call', this.#env.store);
  }

  /**
   * An event frame that is not a run event a child reports (an unknown name, a supervisor's event,
   * fields that do not match its schema). The child is still heard (the frame counts as progress,
   * as any frame does), but nothing it says there is recorded or passed on.
   */
  #onInvalid(name: string, reason: string): void {
    if (this.#invalidNames.has(name) || this.#invalidNames.size >= INVALID_NAMES_RECORDED) return;
    this.#invalidNames.add(name);
    this.#owner.record(this.#node, { type: 'event.invalid', name, reason });
  }

  #recordTranscript(): NodeTranscript {
    const node = this.#node;
    this.#transcript ??= new NodeTranscript({
      store: this.#env.store,
      runId: this.#env.runId,
      nodeId: node.id,
      scrub: this.#env.scrub,
      now: this.#env.now,
      invalid: (reason) => {
        this.#owner.record(node, { type: 'transcript.invalid', reason });
      },
    });
    return this.#transcript;
  }
}
