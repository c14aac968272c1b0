import { replayTranscript, type SpawnPayload } from '../../protocol/index.js';
import { resumeTemplate } from '../resume/resumed-run.js';
import type { LiveNode } from './live-node.js';
import type { NodeEnvironment, NodeOwner } from './node-lifecycle.js';
import type { NodeRunner, NodeRunnerOptions } from './node-runner.js';
import { unansweredCalls, type NodeWaits } from './node-waits.js';

interface NodeParkingOptions {
  /** How long a node only waits before it is parked. */
  afterMs: number;
  waits: NodeWaits;
  runner(): NodeRunner | undefined;
  /** The tools of the node's step in flight that have no result yet (see `unansweredCalls`). */
  unanswered(): string[] | undefined;
  /** The node was parked, waiting on these tools. */
  parked(waiting: string[]): void;
}

/**
 * Decides when a node parks: once it has done nothing but wait on the supervisor for `afterMs`
 * (every tool call of its step in flight is a request the supervisor serves — a person, a
 * sub-agent, an awaited turn — so its child runs nothing of its own), its child is let go.
 */
class NodeParking {
  readonly #options: NodeParkingOptions;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: NodeParkingOptions) {
    this.#options = options;
  }

  /** The requests in flight changed: the wait starts, goes on, or is over. */
  changed(): void {
    const waiting = this.#options.waits.waiting.length > 0;
    if (!waiting || this.#options.runner()?.isParked === true) {
      this.stop();
      return;
    }
    if (this.#timer !== undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#tryPark();
    }, this.#options.afterMs);
    this.#timer.unref();
  }

  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #tryPark(): void {
    const { waits } = this.#options;
    const runner = this.#options.runner();
    const waiting = waits.waiting;
    if (runner === undefined || waiting.length === 0) return;
    // A call the child runs itself (a command, a file tool) in the same step: not only waiting.
    if (!sameTools(this.#options.unanswered(), waiting)) {
      this.changed();
      return;
    }
    if (runner.park(() => waits.park())) this.#options.parked(waiting);
  }
}

function sameTools(a: readonly string[] | undefined, b: readonly string[]): boolean {
  return a?.length === b.length && a.every((name, i) => name === b[i]);
}

/** What a node that may park adds to its lifecycle. */
export interface Parking {
  /** The requests in flight changed (see `NodeParking.changed`). */
  changed: () => void;
  /** The node ended: no more parking. */
  stop: () => void;
  /** How its runner wakes it. */
  runnerOptions: Pick<NodeRunnerOptions, 'wakePayload' | 'onWake'>;
  /** Its child said `ready`: if it was woken, how long it lay parked and how long waking took. */
  ready: () => void;
}

/**
 * How a node parks, when it may: a process child (its state is all in the store; an in-process
 * session, a fleet worker's child or a peer's task is not let go), one-shot (a warm session waits
 * for its messages as a session), not a replay, and parking on for the run (`parkAfterMs`).
 */
export function parkingFor(
  env: NodeEnvironment,
  owner: NodeOwner,
  live: LiveNode,
  sent: SpawnPayload,
  waits: NodeWaits,
): Parking | undefined {
  const afterMs = env.timing.parkAfterMs;
  if (afterMs <= 0 || live.provider !== 'process' || sent.warm || sent.replay !== undefined)
    return undefined;
  const { node } = live;
  const { store, runId } = env;
  const transcript = () => {
    store.flush();
    return replayTranscript(store.listTranscript(runId, node.id));
  };
  let parkedAt: { at: number; wokeAt?: number } | undefined;
  const parking = new NodeParking({
    afterMs,
    waits,
    runner: () => live.runner,
    unanswered: () => unansweredCalls(transcript()),
    parked: (waiting) => {
      parkedAt = { at: env.now() };
      store.updateNode(runId, node.id, { status: 'parked' });
      owner.record(node, { type: 'node.parked', waiting, afterMs });
      owner.setStatus(node, 'parked');
    },
  });
  return {
    changed: () => {
      parking.changed();
    },
    stop: () => {
      parking.stop();
    },
    runnerOptions: {
      // Its step in flight is asked again, and answered from what it waited for; its steps and
      // deadline are less what it used.
      wakePayload: (deadlineMs) => {
        const payload = resumeTemplate(sent, node, transcript());
        if (deadlineMs === undefined) return payload;
        const limits = { ...payload.limits, deadline_ms: Math.max(1, Math.ceil(deadlineMs)) };
        return { ...payload, limits };
      },
      onWake: () => {
        parkedAt = { at: parkedAt?.at ?? env.now(), wokeAt: env.now() };
        owner.setStatus(node, 'spawning');
      },
    },
    ready: () => {
      if (parkedAt?.wokeAt === undefined) return;
      const { at, wokeAt } = parkedAt;
      parkedAt = undefined;
      owner.record(node, { type: 'node.woken', parkedMs: wokeAt - at, wakeMs: env.now() - wokeAt });
    },
  };
}
