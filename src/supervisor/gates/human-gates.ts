import type { SecretScrubber } from '../../protocol/index.js';
import type { CarriedGates } from '../resume/carried-gates.js';
import type { RecordEvent } from '../event-sink.js';
import { killPoint } from '../launch/kill-points.js';
import { sleep } from '../sleep.js';
import type { GateRecord, RunStore } from '../../store/store-port.js';

/** What came back from asking a person. */
export type HumanAnswer =
  | { answered: true; answer: string; via: string }
  | { answered: false; reason: string; via: string };

/** Somewhere a question can be put to a person: a terminal, the store (`arbor gate answer`), or nobody. */
export interface HumanResponder {
  ask(gate: GateRecord, options: { signal: AbortSignal }): Promise<HumanAnswer>;
}

/** No interface: every question fails at once, which the asker sees as a tool error. */
export const failResponder: HumanResponder = {
  ask: () =>
    Promise.resolve({
      answered: false,
      reason: 'no person is available to answer (ask fallback: fail)',
      via: 'fallback',
    }),
};

/**
 * Waits for an answer written to the store from elsewhere (`arbor gate answer RUN GATE TEXT`), so
 * a question asked deep in a tree surfaces to whoever looks after the run, and survives restarts.
 */
export function storeResponder(store: RunStore, pollMs = 250): HumanResponder {
  return {
    ask: async (gate, { signal }) => {
      while (!signal.aborted) {
        const current = store.getGate(gate.runId, gate.id);
        if (current?.status === 'answered' && current.answer !== undefined)
          return { answered: true, answer: current.answer, via: current.via ?? 'cli' };
        if (current !== undefined && current.status !== 'open')
          return {
            answered: false,
            reason: `the gate was closed ${current.status}`,
            via: current.via ?? 'cli',
          };
        await sleep(pollMs, { signal });
      }
      return {
        answered: false,
        reason: 'the question was withdrawn: the asker stopped',
        via: 'cancel',
      };
    },
  };
}

/** The first of several responders to answer; the others are told to stop. */
export function firstResponder(responders: readonly HumanResponder[]): HumanResponder {
  return {
    ask: async (gate, { signal }) => {
      const stop = new AbortController();
      const both = AbortSignal.any([signal, stop.signal]);
      try {
        return await Promise.race(responders.map((r) => r.ask(gate, { signal: both })));
      } finally {
        stop.abort();
      }
    },
  };
}

export interface GateEvents {
  /** `resumed`: a gate open when the supervisor died, asked again under its own id. */
  onOpen(gate: GateRecord, resumed: boolean): void;
  onClose(gate: GateRecord, answer: HumanAnswer): void;
}

/** Gate events written to the run's record as `gate.opened` and `gate.closed`. */
export function recordedGateEvents(record: RecordEvent): GateEvents {
  return {
    onOpen: (gate, resumed) => {
      record(gate.nodeId, {
        type: 'gate.opened',
        gate: gate.id,
        question: gate.question,
        ...gate.payload,
        ...(resumed ? { resumed: true } : {}),
      });
    },
    onClose: (gate, answer) => {
      record(gate.nodeId, {
        type: 'gate.closed',
        gate: gate.id,
        answered: answer.answered,
        via: answer.via,
      });
    },
  };
}

/**
 * Human gates of a run: each question is recorded in the store before anyone is asked, put to the
 * responder, and closed with how it was answered. A gate nobody answered has not been approved.
 */
export class HumanGates {
  readonly #store: RunStore;
  readonly #runId: string;
  readonly #responder: HumanResponder;
  readonly #events: GateEvents | undefined;
  readonly #now: () => number;
  readonly #scrub: SecretScrubber | undefined;
  readonly #carried: CarriedGates | undefined;
  #next: number;

  constructor(options: {
    store: RunStore;
    runId: string;
    responder: HumanResponder;
    events?: GateEvents;
    now?: () => number;
    /** The run's secret scrubber: a question and what it shows are stored and shown scrubbed. */
    scrub?: SecretScrubber;
    /** A resumed run's gates: those carried over, and the number its next new gate takes. */
    resumed?: { carried: CarriedGates; next: number };
  }) {
    this.#store = options.store;
    this.#runId = options.runId;
    this.#responder = options.responder;
    this.#events = options.events;
    this.#now = options.now ?? (() => Date.now());
    this.#scrub = options.scrub;
    this.#carried = options.resumed?.carried;
    this.#next = options.resumed?.next ?? 1;
  }

  async ask(
    nodeId: string,
    question: string,
    payload: Record<string, unknown>,
    options: { signal: AbortSignal; timeoutMs?: number },
  ): Promise<HumanAnswer> {
    question = this.#scrub?.text(question) ?? question;
    payload = this.#scrub?.deep(payload) ?? payload;
    const carried = this.#carried?.claim(nodeId, question);
    if (carried?.status === 'answered' && carried.answer !== undefined) {
      // Answered while the run lay dead: the answer stands, and nobody is asked again.
      const answer: HumanAnswer = {
        answered: true,
        answer: carried.answer,
        via: carried.via ?? 'cli',
      };
      this.#events?.onOpen(carried, true);
      this.#events?.onClose(carried, answer);
      return answer;
    }
    const gate: GateRecord =
      carried?.status === 'open'
        ? carried
        : {
            runId: this.#runId,
            id: `g${this.#next++}`,
            nodeId,
            question,
            payload,
            status: 'open',
            createdAt: this.#now(),
          };
    if (gate !== carried) this.#store.openGate(gate);
    this.#events?.onOpen(gate, gate === carried);
    killPoint('gate-open', this.#store);
    const signals = [options.signal];
    if (options.timeoutMs !== undefined) signals.push(AbortSignal.timeout(options.timeoutMs));
    const signal = AbortSignal.any(signals);
    const answer = await this.#responder.ask(gate, { signal });
    const timedOut = !answer.answered && !options.signal.aborted && signal.aborted;
    const closed: HumanAnswer = timedOut
      ? { answered: false, reason: `no answer within ${options.timeoutMs ?? 0} ms`, via: 'timeout' }
      : answer;
    this.#store.closeGate(this.#runId, gate.id, {
      status: closed.answered ? 'answered' : timedOut ? 'timed_out' : 'failed',
      ...(closed.answered ? { answer: closed.answer } : {}),
      via: closed.via,
      closedAt: this.#now(),
    });
    this.#events?.onClose(gate, closed);
    return closed;
  }

  /** Carried gates nobody asked again (their node ended otherwise) are closed, failed, via `resume`. */
  settleCarried(): void {
    for (const gate of this.#carried?.unclaimedOpen() ?? []) {
      const reason = 'interrupted, and not asked again when the run resumed';
      this.#store.closeGate(this.#runId, gate.id, {
        status: 'failed',
        via: 'resume',
        closedAt: this.#now(),
      });
      this.#events?.onClose(gate, { answered: false, reason, via: 'resume' });
    }
  }
}
