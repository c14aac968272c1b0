import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import type { HumanResponder } from '../supervisor/index.js';

/**
 * Asks questions on the terminal running `arbor run`, one at a time (a second question waits for
 * the first to be answered), and gives up when the asker stops.
 */
export function terminalResponder(input: Readable, output: Writable): HumanResponder {
  let queue: Promise<unknown> = Promise.resolve();
  return {
    ask: (gate, { signal }) => {
      const asked = queue.then(
        () =>
          new Promise<Awaited<ReturnType<HumanResponder['ask']>>>((resolve) => {
            if (signal.aborted) {
              resolve({ answered: false, reason: 'the question was withdrawn', via: 'cancel' });
              return;
            }
            const lines = createInterface({ input, output, terminal: true });
            const choices = gateChoices(gate.payload);
            const shown = showChoices(choices);
            const onAbort = (): void => {
              lines.close();
              resolve({ answered: false, reason: 'the question was withdrawn', via: 'cancel' });
            };
            signal.addEventListener('abort', onAbort, { once: true });
            lines.question(
              `\narbor: ${gate.nodeId ?? 'a node'} asks (gate ${gate.id}): ${gate.question}${shown}\n> `,
              (answer) => {
                signal.removeEventListener('abort', onAbort);
                lines.close();
                resolve({ answered: true, answer: chosen(answer, choices), via: 'terminal' });
              },
            );
          }),
      );
      queue = asked.catch(() => undefined);
      return asked;
    },
  };
}

/** A gate's choices, as its payload lists them (none when it lists none). */
export function gateChoices(payload: Record<string, unknown>): string[] {
  return Array.isArray(payload.choices) ? (payload.choices as unknown[]).map(String) : [];
}

/** The choices as a person is shown them, numbered from 1: ` [1) yes / 2) no]`, or nothing. */
export function showChoices(choices: readonly string[]): string {
  return choices.length === 0
    ? ''
    : ` [${choices.map((choice, i) => `${i + 1}) ${choice}`).join(' / ')}]`;
}

/**
 * The answer to store: a choice's number as shown (1-based) stands for the choice itself; any
 * other answer, a choice that is itself a number among them, is kept as typed.
 */
export function chosen(answer: string, choices: readonly string[]): string {
  const typed = answer.trim();
  if (choices.includes(typed) || !/^\d+$/.test(typed)) return answer;
  return choices[Number(typed) - 1] ?? answer;
}
