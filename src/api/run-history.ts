import { fromStoredEvent } from '../protocol/index.js';
import type { ArborEvent } from '../runtime/index.js';
import type { SqliteStore } from '../store/index.js';
import type { NodeRecord, RunRecord } from '../supervisor/index.js';

/** Past and present runs of a store, as they were recorded. */
export class RunHistory {
  readonly #store: SqliteStore;

  constructor(store: SqliteStore) {
    this.#store = store;
  }

  /** Runs, newest first. */
  list(filter: { status?: string; since?: Date | number; limit?: number } = {}): RunRecord[] {
    const since = filter.since instanceof Date ? filter.since.getTime() : filter.since;
    return this.#store.listRuns({
      ...(filter.status === undefined ? {} : { status: filter.status }),
      ...(since === undefined ? {} : { since }),
      ...(filter.limit === undefined ? {} : { limit: filter.limit }),
    });
  }

  /** One run and its nodes (payloads redacted), or `undefined`. */
  get(runId: string): (RunRecord & { nodes: NodeRecord[] }) | undefined {
    const run = this.#store.getRun(runId);
    return run === undefined ? undefined : { ...run, nodes: this.#store.listNodes(runId) };
  }

  /**
   * The events recorded for a run (every kind but `text.delta`, which is never stored). One of a
   * kind this arbor does not know (recorded by another version) is an `event.unknown`, holding its
   * stored name and data, as the CLI and the dashboard show it too.
   */
  events(runId: string): ArborEvent[] {
    const paths = new Map(this.#store.listNodes(runId).map((node) => [node.id, node.path]));
    return this.#store
      .listEvents(runId)
      .map((event) =>
        fromStoredEvent(
          event,
          runId,
          event.nodeId === undefined ? undefined : paths.get(event.nodeId),
        ),
      );
  }
}
