/** What one session sent to and received from one host and port. */
export interface TrafficTotal {
  host: string;
  port: number;
  connections: number;
  bytes_up: number;
  bytes_down: number;
  /** From the first connection's start to the last one's end, in milliseconds. */
  ms: number;
}

interface Entry {
  total: TrafficTotal;
  firstStart: number;
  lastEnd: number;
  /** Connections still open. */
  open: number;
}

/** A session's allowed traffic, per host:port, summed as its connections run. */
export class TrafficLog {
  readonly #entries = new Map<string, Entry>();

  /** A connection to `host:port` starts; counting goes through the returned meter. */
  start(host: string, port: number): TrafficMeter {
    const key = `${host}\n${port}`;
    let entry = this.#entries.get(key);
    if (entry === undefined) {
      const total = { host, port, connections: 0, bytes_up: 0, bytes_down: 0, ms: 0 };
      entry = { total, firstStart: Date.now(), lastEnd: 0, open: 0 };
      this.#entries.set(key, entry);
    }
    entry.total.connections += 1;
    entry.open += 1;
    return new TrafficMeter(entry);
  }

  /** The totals, in the order the hosts were first reached. Connections still open count to now. */
  totals(): TrafficTotal[] {
    const now = Date.now();
    return [...this.#entries.values()].map((entry) => ({
      ...entry.total,
      ms: (entry.open > 0 ? now : entry.lastEnd) - entry.firstStart,
    }));
  }
}

/** One connection's counters. */
export class TrafficMeter {
  readonly #entry: Entry;
  #ended = false;

  constructor(entry: Entry) {
    this.#entry = entry;
  }

  up(bytes: number): void {
    this.#entry.total.bytes_up += bytes;
  }

  down(bytes: number): void {
    this.#entry.total.bytes_down += bytes;
  }

  /** The connection ended; later calls do nothing. */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#entry.open -= 1;
    this.#entry.lastEnd = Date.now();
  }
}
