import { ArborError } from '../protocol/index.js';
import type { HumanAnswer, HumanResponder } from '../supervisor/index.js';

/** A question as the host sees it, to answer with `run.answerGate(id, answer)` or `onAsk`. */
export interface GateQuestion {
  id: string;
  /** The node that asked, when a node did. */
  nodeId?: string;
  question: string;
  /** The choices offered, when the asker gave some (`yes`/`no` for approvals). */
  choices?: string[];
}

/**
 * Questions of one run, answered through its handle: each open gate waits here until
 * `answer` is called for it, the host's `onAsk` answers, or the asker stops.
 */
export class GateAnswers {
  readonly #open = new Map<string, (answer: HumanAnswer) => void>();
  readonly #onAsk: ((question: GateQuestion) => Promise<string> | string) | undefined;

  constructor(onAsk?: (question: GateQuestion) => Promise<string> | string) {
    this.#onAsk = onAsk;
  }

  readonly responder: HumanResponder = {
    ask: (gate, { signal }) =>
      new Promise<HumanAnswer>((resolve) => {
        const settle = (answer: HumanAnswer): void => {
          if (!this.#open.has(gate.id)) return;
          this.#open.delete(gate.id);
          signal.removeEventListener('abort', withdraw);
          resolve(answer);
        };
        const withdraw = (): void => {
          settle({
            answered: false,
            reason: 'the question was withdrawn: the asker stopped',
            via: 'cancel',
          });
        };
        this.#open.set(gate.id, settle);
        signal.addEventListener('abort', withdraw, { once: true });
        if (signal.aborted) withdraw();
        const choices = gate.payload.choices;
        const question: GateQuestion = {
          id: gate.id,
          ...(gate.nodeId === undefined ? {} : { nodeId: gate.nodeId }),
          question: gate.question,
          ...(Array.isArray(choices) ? { choices: choices.map(String) } : {}),
        };
        if (this.#onAsk !== undefined) {
          Promise.resolve(this.#onAsk(question)).then(
            (answer) => {
              settle({ answered: true, answer, via: 'host' });
            },
            (error: unknown) => {
              settle({
                answered: false,
                reason: `the host could not answer: ${error instanceof Error ? error.message : String(error)}`,
                via: 'host',
              });
            },
          );
        }
      }),
  };

  /** Answers an open gate; a gate that is not open is an error naming it. */
  answer(gateId: string, answer: string): void {
    const settle = this.#open.get(gateId);
    if (settle === undefined) {
      const open = [...this.#open.keys()];
      throw new ArborError(
        'usage',
        `No open gate \`${gateId}\` in this run (open: ${open.length === 0 ? 'none' : open.join(', ')}).`,
      );
    }
    settle({ answered: true, answer, via: 'api' });
  }
}
