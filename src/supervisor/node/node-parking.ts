import { replayTranscript, type SpawnPayload } from '../../protocol/index.js';
import type { ToolAnswer } from '../internal/index.js';
import { recordedPayload } from '../launch/remote-node.js';
import type { LiveNode } from './live-node.js';
import type { NodeEnvironment, NodeOwner, ToolRequest } from './node-lifecycle.js';
import type { NodeRunnerOptions } from './node-runner.js';
import { NodeWaits, unansweredCalls } from './node-waits.js';

/**
 * A node that may park, and when it does: once it has done nothing but wait on the supervisor for
 * `afterMs` (every tool call of its step in flight is a request the supervisor serves — a person,
 * a sub-agent, an awaited turn — so its child runs nothing of its own), its child is let go; what
 * it waits on is carried (`NodeWaits`) and it is woken from its recorded transcript.
 */
export class NodeParking {
  readonly #env: NodeEnvironment;
  readonly #owner: NodeOwner;
  readonly #live: LiveNode;
  readonly #sent: SpawnPayload;
  readonly #afterMs: number;
  readonly #waits = new NodeWaits(() => {
    this.#changed();
  });
  #timer: NodeJS.Timeout | undefined;
  /** When it parked, and when what it waited for arrived (it is being woken). */
  #parkedAt: { at: number; wokeAt?: number } | undefined;

  /**
   * How a node parks, when it may: a process child (its state is all in the store; an in-process
   * session, a fleet worker's child or a peer's task is not let go), one-shot (a warm session waits
   * for its messages as a session), not a replay, and parking on for the run (`parkAfterMs`).
   */
  static for(
    env: NodeEnvironment,
    owner: NodeOwner,
    live: LiveNode,
    sent: SpawnPayload,
  ): NodeParking | undefined {
    const afterMs = env.timing.parkAfterMs;
    if (afterMs <= 0 || live.provider !== 'process' || sent.warm || sent.replay !== undefined)
      return undefined;
    return new NodeParking(env, owner, live, sent, afterMs);
  }

  private constructor(
    env: NodeEnvironment,
    owner: NodeOwner,
    live: LiveNode,
    sent: SpawnPayload,
    afterMs: number,
  ) {
    this.#env = env;
    this.#owner = owner;
    this.#live = live;
    this.#sent = sent;
    this.#afterMs = afterMs;
  }

  /** Serves a request of the node's child through its waits (see `NodeWaits.serve`). */
  serve(frame: ToolRequest, handler: () => Promise<ToolAnswer>): Promise<ToolAnswer> {
    return this.#waits.serve(frame, handler);
  }

  /** The node ended: no more parking. */
  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** How its runner wakes it. */
  get runnerOptions(): Pick<NodeRunnerOptions, 'wakePayload' | 'onWake'> {
    const env = this.#env;
    const { node } = this.#live;
    return {
      // Its step in flight is asked again, and answered from what it waited for; its steps and
      // deadline are less what it used.
      wakePayload: (deadlineMs) => {
        const payload = recordedPayload(env.store, env.runId, node, this.#sent);
        if (deadlineMs === undefined) return payload;
        const limits = { ...payload.limits, deadline_ms: Math.max(1, Math.ceil(deadlineMs)) };
        return { ...payload, limits };
      },
      onWake: () => {
        this.#parkedAt = { at: this.#parkedAt?.at ?? env.now(), wokeAt: env.now() };
        this.#owner.setStatus(node, 'spawning');
      },
    };
  }

  /** Its child said `ready`: if it was woken, how long it lay parked and how long waking took. */
  ready(): void {
    const parked = this.#parkedAt;
    if (parked?.wokeAt === undefined) return;
    this.#parkedAt = undefined;
    this.#owner.record(this.#live.node, {
      type: 'node.woken',
      parkedMs: parked.wokeAt - parked.at,
      wakeMs: this.#env.now() - parked.wokeAt,
    });
  }

  /** The requests in flight changed: the wait starts, goes on, or is over. */
  #changed(): void {
    if (this.#waits.waiting.length === 0 || this.#live.runner?.isParked === true) {
      this.stop();
      return;
    }
    if (this.#timer !== undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#tryPark();
    }, this.#afterMs);
    this.#timer.unref();
  }

  #tryPark(): void {
    const runner = this.#live.runner;
    const waiting = this.#waits.waiting;
    if (runner === undefined || waiting.length === 0) return;
    // A call the child runs itself (a command, a file tool) in the same step: not only waiting.
    if (!sameTools(this.#unanswered(), waiting)) {
      this.#changed();
      return;
    }
    if (!runner.park(() => this.#waits.park())) return;
    const { store, runId } = this.#env;
    const { node } = this.#live;
    this.#parkedAt = { at: this.#env.now() };
    store.updateNode(runId, node.id, { status: 'parked' });
    this.#owner.record(node, { type: 'node.parked', waiting, afterMs: this.#afterMs });
    this.#owner.setStatus(node, 'parked');
  }

  /** The tools of its step in flight that have no result yet, from its recorded transcript. */
  #unanswered(): string[] | undefined {
    const { store, runId } = this.#env;
    store.flush();
    return unansweredCalls(replayTranscript(store.listTranscript(runId, this.#live.node.id)));
  }
}

function sameTools(a: readonly string[] | undefined, b: readonly string[]): boolean {
  return a?.length === b.length && a.every((name, i) => name === b[i]);
}
