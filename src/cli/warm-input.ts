import { createInterface } from 'node:readline';
import type { Supervisor } from '../supervisor/index.js';
import type { CliIo } from './output.js';

/**
 * A warm session's input: each line on stdin is the next message, given to the root in order (the
 * supervisor holds each until the root's child can take it, so piped input that arrives at once
 * loses nothing); the end of input closes the session once every message given has been answered,
 * so `printf 'a\nb\n' | arbor run --warm …` answers both.
 */
export class WarmInput {
  readonly #supervisor: Supervisor;
  readonly #rootId: string | undefined;
  readonly #lines: ReturnType<typeof createInterface>;
  /** Turns still to be answered: the one in flight at the start, and each message delivered. */
  #unanswered: number;
  #ended = false;
  #closed = false;

  /** `turnOpen`: the root starts with a turn to answer (not a resumed one already announced). */
  constructor(io: CliIo, supervisor: Supervisor, turnOpen: boolean) {
    this.#supervisor = supervisor;
    this.#rootId = supervisor.tree.nodes()[0]?.id;
    this.#unanswered = turnOpen ? 1 : 0;
    this.#lines = createInterface({ input: io.stdin, crlfDelay: Infinity });
    this.#lines.on('line', (line) => {
      const root = this.#rootId;
      if (line.trim() === '' || root === undefined || this.#closed) return;
      // The supervisor holds each message for the child until it can take it, across restarts too.
      if (this.#supervisor.inject(root, line)) this.#unanswered += 1;
    });
    this.#lines.on('close', () => {
      this.#ended = true;
      this.#closeIfDone();
    });
  }

  /** Closes the session once input has ended and every message given has been answered. */
  #closeIfDone(): void {
    const root = this.#rootId;
    if (root === undefined || this.#closed || !this.#ended || this.#unanswered > 0) return;
    if (this.#supervisor.closeSession(root, 'input ended')) this.#closed = true;
  }

  /** A node answered a turn: the root's counts (a warm sub-agent's are its parent's to read). */
  answered(nodeId: string): void {
    if (nodeId !== this.#rootId) return;
    this.#unanswered = Math.max(0, this.#unanswered - 1);
    this.#closeIfDone();
  }

  close(): void {
    this.#closed = true;
    this.#lines.close();
  }
}
