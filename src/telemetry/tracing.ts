import type { ArborEvent } from '../runtime/events.js';

/** One run's trace: its events become spans; `end` closes what is open. */
export interface RunTrace {
  /** The run span's context, minted into the root's payload (each node derives its own). */
  readonly traceparent: string;
  event(event: ArborEvent): void;
  end(status: string, reason?: string): void;
}

/** Tracing for a process: runs begin traces; `flush` and `shutdown` are bounded in time. */
export interface Tracing {
  begin(
    runId: string,
    options: {
      name: string;
      parent?: string;
      attributes?: Record<string, string>;
      /**
       * The messages a node's last model call was sent (its recorded transcript before that
       * call's answer): read only when content is captured.
       */
      prompt?: (nodeId: string) => unknown[];
    },
  ): RunTrace;
  flush(timeoutMs: number): Promise<void>;
  shutdown(timeoutMs: number): Promise<void>;
  /** Spans dropped so far (a full queue, a failed export). */
  readonly dropped: number;
  /** Whether spans carry content (`capture_content`): nodes then report it. */
  readonly captureContent: boolean;
}

/** What turns tracing on: the standard OpenTelemetry variables, else `[observability]`. */
export interface TracingSettings {
  endpoint?: string;
  protocol?: 'http/json' | 'http/protobuf';
  serviceName?: string;
  /** Model prompts and completions in spans (off by default). */
  captureContent?: boolean;
  /** Where a trace is seen, `{trace_id}` standing for its id: the dashboard links to it. */
  traceUrl?: string;
}
