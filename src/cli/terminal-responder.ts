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
            const choices = Array.isArray(gate.payload.choices)
              ? ` [${(gate.payload.choices as unknown[]).map(String).join(' / ')}]`
              : '';
            const onAbort = (): void => {
              lines.close();
              resolve({ answered: false, reason: 'the question was withdrawn', via: 'cancel' });
            };
            signal.addEventListener('abort', onAbort, { once: true });
            lines.question(
              `\narbor: ${gate.nodeId ?? 'a node'} asks (gate ${gate.id}): ${gate.question}${choices}\n> `,
              (answer) => {
                signal.removeEventListener('abort', onAbort);
                lines.close();
                resolve({ answered: true, answer, via: 'terminal' });
              },
            );
          }),
      );
      queue = asked.catch(() => undefined);
      return asked;
    },
  };
}
