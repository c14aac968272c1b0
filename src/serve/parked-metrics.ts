import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { ArborEvent } from '../runtime/index.js';

/**
 * Parked nodes across every run of `arbor serve`: how many lie parked now (waiting with no
 * process), the age of the oldest, how often nodes park, and how long waking one takes (what it
 * waited for arrived → its new child ready).
 */
export class ParkedMetrics {
  /** When each parked node parked, by run and node (never a label: only counted). */
  readonly #parked = new Map<string, number>();
  readonly #parks: Counter;
  readonly #wakeSeconds: Histogram;

  constructor(registry: Registry, now: () => number = Date.now) {
    const registers = [registry];
    const parked = this.#parked;
    new Gauge({
      name: 'arbor_nodes_parked',
      help: 'Nodes parked now: waiting on a person, a sub-agent or a peer with no process.',
      registers,
      collect() {
        this.set(parked.size);
      },
    });
    new Gauge({
      name: 'arbor_nodes_parked_oldest_seconds',
      help: 'How long the node parked longest ago has lain parked (0 when none is).',
      registers,
      collect() {
        const oldest = Math.min(...parked.values());
        this.set(parked.size === 0 ? 0 : (now() - oldest) / 1000);
      },
    });
    this.#parks = new Counter({
      name: 'arbor_node_parks_total',
      help: 'Times a node was parked.',
      registers,
    });
    this.#wakeSeconds = new Histogram({
      name: 'arbor_node_wake_seconds',
      help: 'From what a parked node waited for arriving to its new child being ready.',
      buckets: [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
  }

  /** Follows the events that park, wake and end nodes. */
  observe(event: ArborEvent): void {
    const key = `${event.runId}/${event.nodeId ?? ''}`;
    if (event.type === 'node.parked') {
      this.#parked.set(key, Date.parse(event.ts));
      this.#parks.inc();
    } else if (event.type === 'node.woken') {
      this.#parked.delete(key);
      this.#wakeSeconds.observe(event.wakeMs / 1000);
    } else if (event.type === 'node.status' && event.status !== 'parked') {
      this.#parked.delete(key);
    }
  }
}
