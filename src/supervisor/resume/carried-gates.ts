import type { EventRecord, GateRecord, RunStore } from '../../store/store-port.js';

/**
 * The gates of an interrupted run that its resume carries over: those open when the supervisor
 * died (the `run.interrupted` record names them) and any still open. The node that asked is
 * re-spawned and asks again — the question was its step in flight — and its question is matched,
 * by node and text, to the gate it opened before: the same gate is asked again under its own id,
 * and an answer given to it while the run lay dead (`arbor gate answer`) is taken as it stands.
 */
export class CarriedGates {
  readonly #store: RunStore;
  readonly #runId: string;
  readonly #pending: GateRecord[];

  constructor(store: RunStore, runId: string, pending: readonly GateRecord[]) {
    this.#store = store;
    this.#runId = runId;
    this.#pending = [...pending];
  }

  /** The carried gate a repeated question stands for, as it is now in the store; each is matched once. */
  claim(nodeId: string, question: string): GateRecord | undefined {
    const at = this.#pending.findIndex((g) => g.nodeId === nodeId && g.question === question);
    if (at < 0) return undefined;
    const [gate] = this.#pending.splice(at, 1);
    return gate === undefined ? undefined : (this.#store.getGate(this.#runId, gate.id) ?? gate);
  }

  /** Carried gates nobody asked again that are still open. */
  unclaimedOpen(): GateRecord[] {
    return this.#pending.flatMap((g) => {
      const now = this.#store.getGate(this.#runId, g.id);
      return now?.status === 'open' ? [now] : [];
    });
  }
}

/** The gates a resume carries: open at the crash (as the last `run.interrupted` says), or open now. */
export function pendingGates(
  gates: readonly GateRecord[],
  events: readonly EventRecord[],
): GateRecord[] {
  const crash = events.filter((e) => e.kind === 'run.interrupted').at(-1);
  const named = crash?.data.open_gates;
  const atCrash = new Set(
    Array.isArray(named) ? named.filter((id): id is string => typeof id === 'string') : [],
  );
  return gates.filter((g) => g.status === 'open' || atCrash.has(g.id));
}

/** The number the next gate of a run takes: after every gate it recorded (`g1`, `g2`, …). */
export function nextGateNumber(gates: readonly GateRecord[]): number {
  let max = 0;
  for (const gate of gates) {
    const n = /^g(\d+)$/.exec(gate.id)?.[1];
    if (n !== undefined) max = Math.max(max, Number(n));
  }
  return max + 1;
}
