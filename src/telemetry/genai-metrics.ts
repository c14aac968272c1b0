import { ValueType, type Attributes, type Histogram } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import {
  MeterProvider,
  PeriodicExportingMetricReader,
  type PushMetricExporter,
} from '@opentelemetry/sdk-metrics';

/** The conventions' bucket boundaries of `gen_ai.client.token.usage` (powers of 4). */
const TOKEN_BUCKETS = [
  1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864,
];
/** The conventions' bucket boundaries of `gen_ai.client.operation.duration`, in seconds. */
const DURATION_BUCKETS = [
  0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
];
/** How often metrics are exported when `OTEL_METRIC_EXPORT_INTERVAL` does not say. */
const DEFAULT_INTERVAL_MS = 60_000;
/** A collector that hangs costs at most this per export. */
const EXPORT_TIMEOUT_MS = 2000;

/**
 * What identifies a model operation in both metrics: the operation, the provider, the models and
 * the server (the conventions' attribute names).
 */
export interface OperationAttributes extends Attributes {
  'gen_ai.operation.name': string;
  'gen_ai.provider.name': string;
  'gen_ai.request.model'?: string;
  'gen_ai.response.model'?: string;
  'server.address'?: string;
  'server.port'?: number;
}

/**
 * The two GenAI client metrics of the conventions, recorded by the supervisor from the model calls
 * its nodes report (whichever way they run) and exported over OTLP with the spans:
 * `gen_ai.client.token.usage` (tokens of each call, by `gen_ai.token.type`) and
 * `gen_ai.client.operation.duration` (seconds of each call, `error.type` on a failed attempt).
 */
export class GenAiMetrics {
  readonly #provider: MeterProvider;
  readonly #tokens: Histogram;
  readonly #duration: Histogram;

  constructor(exporter: PushMetricExporter, resource: Resource, env: NodeJS.ProcessEnv) {
    const interval = Number(env.OTEL_METRIC_EXPORT_INTERVAL);
    const exportIntervalMillis =
      Number.isInteger(interval) && interval > 0 ? interval : DEFAULT_INTERVAL_MS;
    this.#provider = new MeterProvider({
      resource,
      readers: [
        new PeriodicExportingMetricReader({
          exporter,
          exportIntervalMillis,
          exportTimeoutMillis: Math.min(EXPORT_TIMEOUT_MS, exportIntervalMillis),
        }),
      ],
    });
    const meter = this.#provider.getMeter('arbor');
    this.#tokens = meter.createHistogram('gen_ai.client.token.usage', {
      description: 'Number of input and output tokens used.',
      unit: '{token}',
      valueType: ValueType.INT,
      advice: { explicitBucketBoundaries: TOKEN_BUCKETS },
    });
    this.#duration = meter.createHistogram('gen_ai.client.operation.duration', {
      description: 'GenAI operation duration.',
      unit: 's',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    });
  }

  /** A model call that answered: its tokens (input, output) and its duration. */
  recordCall(
    attributes: OperationAttributes,
    usage: { inputTokens: number; outputTokens: number },
    ms: number,
  ): void {
    this.#tokens.record(usage.inputTokens, { ...attributes, 'gen_ai.token.type': 'input' });
    this.#tokens.record(usage.outputTokens, { ...attributes, 'gen_ai.token.type': 'output' });
    this.#duration.record(ms / 1000, attributes);
  }

  /** A failed attempt at an endpoint: its duration, with the failure's kind as `error.type`. */
  recordFailure(attributes: OperationAttributes, errorType: string, ms: number): void {
    this.#duration.record(ms / 1000, { ...attributes, 'error.type': errorType });
  }

  /** Exports what was recorded so far. */
  async flush(): Promise<void> {
    await this.#provider.forceFlush();
  }

  /** Exports what is left, then stops. */
  async shutdown(): Promise<void> {
    await this.#provider.shutdown();
  }
}
