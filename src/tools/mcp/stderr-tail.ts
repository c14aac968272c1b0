import type { Readable } from 'node:stream';

const MAX_LINES = 12;
const MAX_LINE_CHARS = 300;

/**
 * The last lines a stdio server wrote on its stderr, kept for error messages ("exited before it
 * finished connecting; its last stderr lines: …"). Reading the stream also keeps the pipe drained,
 * so a chatty server never blocks on a full pipe. Lines are scrubbed as they arrive.
 */
export class StderrTail {
  readonly #lines: string[] = [];
  readonly #scrub: (text: string) => string;
  #partial = '';
  readonly #ended: Promise<void>;

  constructor(stream: Readable, scrub: (text: string) => string) {
    this.#scrub = scrub;
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      this.#push(chunk);
    });
    this.#ended = new Promise((resolve) => {
      stream.once('end', resolve);
      stream.once('close', resolve);
      stream.once('error', () => {
        resolve();
      });
    });
  }

  #push(chunk: string): void {
    const parts = (this.#partial + chunk).split(/\r?\n/);
    this.#partial = (parts.pop() ?? '').slice(0, MAX_LINE_CHARS);
    for (const line of parts) this.#keep(line);
  }

  #keep(line: string): void {
    const trimmed = line.trim();
    if (trimmed === '') return;
    this.#lines.push(this.#scrub(trimmed.slice(0, MAX_LINE_CHARS)));
    if (this.#lines.length > MAX_LINES) this.#lines.shift();
  }

  /** Resolves once the stream has ended, or after `ms`, whichever is first. */
  async settled(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.#ended,
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, ms);
      }),
    ]);
    clearTimeout(timer);
  }

  /** The kept lines, oldest first, with an unfinished last line if there is one. */
  lines(): string[] {
    const partial = this.#partial.trim();
    return partial === '' ? [...this.#lines] : [...this.#lines, this.#scrub(partial)];
  }
}
