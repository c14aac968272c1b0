import type { IntelConfig, RunEvent, TranscriptMessage } from '../protocol/index.js';

/** One run's trace: its events become spans; `end` closes what is open. */
export interface RunTrace {
  /** The run span's context, minted into the root's payload (each node derives its own). */
  readonly traceparent: string;
  event(event: RunEvent): void;
  end(status: string, reason?: string): void;
}

/** What a node runs on, as recorded with it (credentials stripped, model-written text scrubbed). */
export interface NodeAgent {
  intelligence: IntelConfig;
  /** The node's system prompt (nodes in the `agent` role): read only when content is captured. */
  system?: string;
}

/** One model call's messages, as the node's transcript recorded them (scrubbed). */
export interface ModelExchange {
  /** What the call was sent: the transcript before its answer. */
  input: TranscriptMessage[];
  /** The answer it gave (the child records it before it reports the call). */
  output: TranscriptMessage | undefined;
}

/** What a run's trace reads of its nodes besides their events: the store's records. */
export interface RunNodes {
  agent(nodeId: string): NodeAgent | undefined;
  /** The node's latest model call: read only when content is captured. */
  exchange(nodeId: string): ModelExchange;
}

/** Tracing for a process: runs begin traces; `flush` and `shutdown` are bounded in time. */
export interface Tracing {
  begin(
    runId: string,
    options: {
      name: string;
      parent?: string;
      attributes?: Record<string, string>;
      nodes?: RunNodes;
    },
  ): RunTrace;
  flush(timeoutMs: number): Promise<void>;
  shutdown(timeoutMs: number): Promise<void>;
  /** Spans dropped so far (a full queue, a failed export). */
  readonly dropped: number;
  /** Whether spans carry content (`capture_content`): nodes then report it. */
  readonly captureContent: boolean;
}

/**
 * What turns tracing (and the GenAI metrics beside it) on: the standard OpenTelemetry variables,
 * else `[observability]`.
 */
export interface TracingSettings {
  endpoint?: string;
  protocol?: 'http/json' | 'http/protobuf';
  serviceName?: string;
  /**
   * Model messages (`gen_ai.input.messages`, `gen_ai.output.messages`,
   * `gen_ai.system_instructions`) and tool arguments in spans (off by default).
   */
  captureContent?: boolean;
  /** Where a trace is seen, `{trace_id}` standing for its id: the dashboard links to it. */
  traceUrl?: string;
}
