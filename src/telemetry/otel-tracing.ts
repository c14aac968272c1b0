import { setTimeout as wait } from 'node:timers/promises';
import { ROOT_CONTEXT, SpanKind, trace, TraceFlags } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  RandomIdGenerator,
  type IdGenerator,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { BoundedSpanProcessor } from './bounded-processor.js';
import { GenAiMetrics } from './genai-metrics.js';
import { OtelRunTrace } from './otel-run-trace.js';
import { formatTraceparent, parseTraceparent, spanIdOf, traceIdOf } from '../protocol/trace-ids.js';
import type { RunTrace, Tracing, TracingSettings } from './tracing.js';

/** A collector that hangs costs at most this per export; the run never waits on it. */
const EXPORT_TIMEOUT_MS = 2000;

/** Ids the next span takes when set (a run's and its nodes' derived ids); random otherwise. */
class ScriptedIds implements IdGenerator {
  readonly #random = new RandomIdGenerator();
  traceId: string | undefined;
  spanId: string | undefined;

  generateTraceId(): string {
    const id = this.traceId ?? this.#random.generateTraceId();
    this.traceId = undefined;
    return id;
  }

  generateSpanId(): string {
    const id = this.spanId ?? this.#random.generateSpanId();
    this.spanId = undefined;
    return id;
  }
}

/**
 * OpenTelemetry for the supervisor's process: it alone exports (spans, and the GenAI client
 * metrics of every node's model calls), its children never do and never load the SDK.
 */
export class OtelTracing implements Tracing {
  readonly #provider: BasicTracerProvider;
  readonly #processor: BoundedSpanProcessor;
  readonly #metrics: GenAiMetrics | undefined;
  readonly #ids: ScriptedIds;
  readonly #capture: boolean;

  private constructor(
    exporters: { spans: SpanExporter; metrics: GenAiMetricsExporter | undefined },
    settings: TracingSettings,
    env: NodeJS.ProcessEnv,
  ) {
    this.#ids = new ScriptedIds();
    this.#processor = new BoundedSpanProcessor(exporters.spans);
    this.#capture = settings.captureContent === true;
    const resource = resourceFromAttributes({
      'service.name': env.OTEL_SERVICE_NAME ?? settings.serviceName ?? 'arbor',
    });
    this.#provider = new BasicTracerProvider({
      idGenerator: this.#ids,
      resource,
      spanProcessors: [this.#processor],
    });
    this.#metrics =
      exporters.metrics === undefined
        ? undefined
        : new GenAiMetrics(exporters.metrics, resource, env);
  }

  static async create(env: NodeJS.ProcessEnv, settings: TracingSettings): Promise<OtelTracing> {
    const protocol =
      env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ??
      env.OTEL_EXPORTER_OTLP_PROTOCOL ??
      settings.protocol;
    const config = { ...signalUrl(env, settings, 'TRACES'), timeoutMillis: EXPORT_TIMEOUT_MS };
    const spans: SpanExporter =
      protocol === 'http/protobuf'
        ? new (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter(config)
        : new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter(config);
    return new OtelTracing({ spans, metrics: await metricsExporter(env, settings) }, settings, env);
  }

  get captureContent(): boolean {
    return this.#capture;
  }

  get dropped(): number {
    return this.#processor.dropped;
  }

  begin(runId: string, options: Parameters<Tracing['begin']>[1]): RunTrace {
    const remote = parseTraceparent(options.parent);
    const traceId = remote?.traceId ?? traceIdOf(runId);
    const tracer = this.#provider.getTracer('arbor');
    const parentContext =
      remote === undefined
        ? ROOT_CONTEXT
        : trace.setSpanContext(ROOT_CONTEXT, {
            traceId: remote.traceId,
            spanId: remote.spanId,
            traceFlags: TraceFlags.SAMPLED,
            isRemote: true,
          });
    this.#ids.traceId = traceId;
    this.#ids.spanId = spanIdOf(runId, 'run');
    const runSpan = tracer.startSpan(
      options.name,
      { kind: SpanKind.INTERNAL, attributes: { 'arbor.run_id': runId, ...options.attributes } },
      parentContext,
    );
    return new OtelRunTrace({
      runId,
      runSpan,
      traceparent: formatTraceparent(traceId, spanIdOf(runId, 'run')),
      start: (name, attributes, parent, start = {}) => {
        if (start.spanId !== undefined) this.#ids.spanId = start.spanId;
        return tracer.startSpan(
          name,
          {
            attributes,
            ...(start.startTime === undefined ? {} : { startTime: start.startTime }),
            ...(start.kind === undefined ? {} : { kind: start.kind }),
          },
          parent,
        );
      },
      capture: this.#capture,
      ...(options.nodes === undefined ? {} : { nodes: options.nodes }),
      ...(this.#metrics === undefined ? {} : { metrics: this.#metrics }),
    });
  }

  async flush(timeoutMs: number): Promise<void> {
    await bounded(Promise.all([this.#processor.forceFlush(), this.#metrics?.flush()]), timeoutMs);
  }

  async shutdown(timeoutMs: number): Promise<void> {
    await bounded(Promise.all([this.#provider.shutdown(), this.#metrics?.shutdown()]), timeoutMs);
  }
}

type GenAiMetricsExporter = ConstructorParameters<typeof GenAiMetrics>[0];

/**
 * The OTLP/HTTP (JSON) exporter of the GenAI metrics, beside the spans: to
 * `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT`, else `/v1/metrics` of `OTEL_EXPORTER_OTLP_ENDPOINT` or of
 * `[observability] otlp_endpoint`. None when only a traces endpoint is named, or when
 * `OTEL_METRICS_EXPORTER=none`.
 */
async function metricsExporter(
  env: NodeJS.ProcessEnv,
  settings: TracingSettings,
): Promise<GenAiMetricsExporter | undefined> {
  if (env.OTEL_METRICS_EXPORTER === 'none') return undefined;
  const named =
    env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT ?? env.OTEL_EXPORTER_OTLP_ENDPOINT ?? settings.endpoint;
  if (named === undefined || named === '') return undefined;
  const { OTLPMetricExporter } = await import('@opentelemetry/exporter-metrics-otlp-http');
  return new OTLPMetricExporter({
    ...signalUrl(env, settings, 'METRICS'),
    timeoutMillis: EXPORT_TIMEOUT_MS,
  });
}

/**
 * The URL an exporter is given: none when the environment names an endpoint (the exporter reads
 * it, adding its signal's path to the general one), else the settings' endpoint with the path.
 */
function signalUrl(
  env: NodeJS.ProcessEnv,
  settings: TracingSettings,
  signal: 'TRACES' | 'METRICS',
): { url?: string } {
  if (env[`OTEL_EXPORTER_OTLP_${signal}_ENDPOINT`] !== undefined) return {};
  if (env.OTEL_EXPORTER_OTLP_ENDPOINT !== undefined || settings.endpoint === undefined) return {};
  return { url: `${settings.endpoint.replace(/\/+$/, '')}/v1/${signal.toLowerCase()}` };
}

/** Waits for `work`, but no longer than `ms`. */
async function bounded(work: Promise<unknown>, ms: number): Promise<void> {
  await Promise.race([
    work.then(
      () => undefined,
      () => undefined,
    ),
    wait(ms, undefined, { ref: false }),
  ]);
}
