/**
 * The last `maxBytes` of a stream of chunks. A command's end is where its verdict is (the failing
 * test, the compiler error, the summary line), so when output must be cut, the head goes.
 */
export class OutputTail {
  readonly #maxBytes: number;
  readonly #chunks: Buffer[] = [];
  #kept = 0;
  #dropped = 0;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  /** Bytes seen but no longer kept. */
  get dropped(): number {
    return this.#dropped;
  }

  push(chunk: Buffer): void {
    this.#chunks.push(chunk);
    this.#kept += chunk.length;
    while (this.#kept > this.#maxBytes) {
      const first = this.#chunks[0];
      if (first === undefined) break;
      const excess = this.#kept - this.#maxBytes;
      if (first.length <= excess) {
        this.#chunks.shift();
        this.#kept -= first.length;
        this.#dropped += first.length;
      } else {
        this.#chunks[0] = first.subarray(excess);
        this.#kept -= excess;
        this.#dropped += excess;
      }
    }
  }

  /** The kept bytes as text. A character cut at the start of the tail is dropped, not mangled. */
  text(): string {
    let bytes = Buffer.concat(this.#chunks);
    if (this.#dropped > 0) {
      // Skip UTF-8 continuation bytes (10xxxxxx) left over from a character cut in half.
      let start = 0;
      while (start < bytes.length && start < 3 && ((bytes[start] ?? 0) & 0xc0) === 0x80) start++;
      bytes = bytes.subarray(start);
    }
    return bytes.toString('utf8');
  }
}
