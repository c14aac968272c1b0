/**
 * A node's egress limits, shared by all of its sessions: connections open at once, and bytes both
 * ways over the node's life. A connection takes a slot before its host is even resolved, so a
 * flood of slow lookups is bounded too.
 */
export class NodeLimits {
  readonly #maxConnections: number;
  readonly #maxBytes: number;
  #open = 0;
  #bytes = 0;
  /** A connection was cut for passing `max_bytes`: nothing more goes through. */
  #spent = false;

  constructor(limits: { max_connections: number; max_bytes: number }) {
    this.#maxConnections = limits.max_connections;
    this.#maxBytes = limits.max_bytes;
  }

  /** Takes a connection slot; a string says why none is free. */
  admit(): string | undefined {
    if (this.#spent || this.#bytes >= this.#maxBytes)
      return `the node's limit of ${this.#maxBytes} bytes is used up`;
    if (this.#open >= this.#maxConnections)
      return `over the node's limit of ${this.#maxConnections} concurrent connections`;
    this.#open += 1;
    return undefined;
  }

  /** Gives back a slot `admit` took. */
  release(): void {
    this.#open -= 1;
  }

  /**
   * Counts `bytes` about to pass; a string says why they may not (they would take the node past
   * `max_bytes`), and from then on nothing more is admitted.
   */
  take(bytes: number): string | undefined {
    if (this.#spent || this.#bytes + bytes > this.#maxBytes) {
      this.#spent = true;
      return `passed the node's limit of ${this.#maxBytes} bytes`;
    }
    this.#bytes += bytes;
    return undefined;
  }
}
