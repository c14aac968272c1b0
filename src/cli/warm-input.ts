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
  readonly #queue: string[] = [];
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
      if (line.trim() === '') return;
      this.#queue.push(line);
      this.deliver();
    });
    this.#lines.on('close', () => {
      this.#ended = true;
      this.deliver();
    });
  }

  /**
   * Gives the root what waits, in order (the supervisor holds each for the child until it can take
   * it, across restarts too); then closes the session if every message has been answered.
   */
  deliver(): void {
    const root = this.#rootId;
    if (root === undefined || this.#closed) return;
    while (this.#queue.length > 0) {
      if (!this.#supervisor.inject(root, this.#queue[0] ?? '')) return;
      this.#queue.shift();
      this.#unanswered += 1;
    }
    if (this.#ended && this.#unanswered === 0 && this.#supervisor.closeSession(root, 'input ended'))
      this.#closed = true;
  }

  /** A node answered a turn: the root's counts (a warm sub-agent's are its parent's to read). */
  answered(nodeId: string): void {
    if (nodeId !== this.#rootId) return;
    this.#unanswered = Math.max(0, this.#unanswered - 1);
    this.deliver();
  }

  close(): void {
    this.#closed = true;
    this.#lines.close();
  }
}
