import { agentSystemPrompt } from '../loop/index.js';
import { replayTranscript } from '../protocol/index.js';
import type { SqliteStore } from '../store/index.js';
import type { ModelExchange, NodeAgent, RunNodes } from '../telemetry/tracing.js';

/**
 * What a run's trace reads of its nodes from the store: each node's recorded payload (credentials
 * stripped, model-written text scrubbed) and its recorded transcript (scrubbed).
 */
export class StoreRunNodes implements RunNodes {
  readonly #store: SqliteStore;
  readonly #runId: string;

  constructor(store: SqliteStore, runId: string) {
    this.#store = store;
    this.#runId = runId;
  }

  agent(nodeId: string): NodeAgent | undefined {
    const payload = this.#store.getNode(this.#runId, nodeId)?.payload;
    if (payload === undefined) return undefined;
    if (payload.role !== 'agent') return { intelligence: payload.intelligence };
    const { enabled, spotlight, marker } = payload.content_isolation;
    return {
      intelligence: payload.intelligence,
      // As the child builds it (`run-agent.ts`), from what the supervisor minted.
      system: agentSystemPrompt(payload, {
        structuredOutput: payload.output_schema !== undefined,
        isolationMarker: enabled && spotlight ? marker : undefined,
      }),
    };
  }

  /**
   * The node's latest model call: its recorded transcript, the answer that call gave last (the
   * child records the answer before it reports the call).
   */
  exchange(nodeId: string): ModelExchange {
    const messages = replayTranscript(this.#store.listTranscript(this.#runId, nodeId));
    const last = messages.at(-1);
    return last?.role === 'assistant'
      ? { input: messages.slice(0, -1), output: last }
      : { input: messages, output: undefined };
  }
}
