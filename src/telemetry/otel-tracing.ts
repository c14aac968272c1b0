import { setTimeout as wait } from 'node:timers/promises';
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Context,
  type Span,
} from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  RandomIdGenerator,
  type IdGenerator,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import type { RunEvent } from '../protocol/index.js';
import { BoundedSpanProcessor } from './bounded-processor.js';
import { formatTraceparent, parseTraceparent, spanIdOf, traceIdOf } from '../protocol/trace-ids.js';
import type { RunTrace, Tracing, TracingSettings } from './tracing.js';

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

/** OpenTelemetry tracing for the supervisor's process: it alone exports, its children never do. */
export class OtelTracing implements Tracing {
  readonly #provider: BasicTracerProvider;
  readonly #processor: BoundedSpanProcessor;
  readonly #ids: ScriptedIds;
  readonly #capture: boolean;

  private constructor(exporter: SpanExporter, settings: TracingSettings, env: NodeJS.ProcessEnv) {
    this.#ids = new ScriptedIds();
    this.#processor = new BoundedSpanProcessor(exporter);
    this.#capture = settings.captureContent === true;
    this.#provider = new BasicTracerProvider({
      idGenerator: this.#ids,
      resource: resourceFromAttributes({
        'service.name': env.OTEL_SERVICE_NAME ?? settings.serviceName ?? 'arbor',
      }),
      spanProcessors: [this.#processor],
    });
  }

  static async create(env: NodeJS.ProcessEnv, settings: TracingSettings): Promise<OtelTracing> {
    const protocol =
      env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ??
      env.OTEL_EXPORTER_OTLP_PROTOCOL ??
      settings.protocol;
    const url =
      env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT === undefined &&
      env.OTEL_EXPORTER_OTLP_ENDPOINT === undefined &&
      settings.endpoint !== undefined
        ? { url: `${settings.endpoint.replace(/\/+$/, '')}/v1/traces` }
        : {};
    // A collector that hangs costs at most this per export; the run never waits on it.
    const config = { ...url, timeoutMillis: 2000 };
    const exporter: SpanExporter =
      protocol === 'http/protobuf'
        ? new (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter(config)
        : new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter(config);
    return new OtelTracing(exporter, settings, env);
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
      start: (name, attributes, parent, startTime, spanId) => {
        if (spanId !== undefined) this.#ids.spanId = spanId;
        return tracer.startSpan(
          name,
          { attributes, ...(startTime === undefined ? {} : { startTime }) },
          parent,
        );
      },
      capture: this.#capture,
      ...(options.prompt === undefined ? {} : { prompt: options.prompt }),
    });
  }

  async flush(timeoutMs: number): Promise<void> {
    await bounded(this.#processor.forceFlush(), timeoutMs);
  }

  async shutdown(timeoutMs: number): Promise<void> {
    await bounded(this.#provider.shutdown(), timeoutMs);
  }
}

type StartSpan = (
  name: string,
  attributes: Record<string, string | number | boolean | string[]>,
  parent: Context,
  startTime?: number,
  spanId?: string,
) => Span;

/**
 * One run's spans, made from its events as the supervisor records them: the run, each node (the
 * id its payload's `traceparent` names, under its caller's node), each model call (with the
 * GenAI attributes), each tool call, each wait for a person or for a spawn slot.
 */
class OtelRunTrace implements RunTrace {
  readonly traceparent: string;
  readonly #runId: string;
  readonly #run: Span;
  readonly #start: StartSpan;
  readonly #capture: boolean;
  readonly #prompt: ((nodeId: string) => unknown[]) | undefined;
  readonly #nodes = new Map<string, Span>();
  readonly #open = new Map<string, Span>();

  constructor(options: {
    runId: string;
    runSpan: Span;
    traceparent: string;
    start: StartSpan;
    capture: boolean;
    prompt?: (nodeId: string) => unknown[];
  }) {
    this.#prompt = options.prompt;
    this.#runId = options.runId;
    this.#run = options.runSpan;
    this.traceparent = options.traceparent;
    this.#start = options.start;
    this.#capture = options.capture;
  }

  event(event: RunEvent): void {
    const at = Date.parse(event.ts);
    const node = event.nodeId === undefined ? undefined : this.#nodes.get(event.nodeId);
    const under = trace.setSpan(ROOT_CONTEXT, node ?? this.#run);
    const handle = this.#handlers[event.type] as
      ((event: RunEvent, at: number, node: Span | undefined, under: Context) => void) | undefined;
    handle?.(event, at, node, under);
  }

  /** What each kind of event makes of the spans; the others make nothing. */
  readonly #handlers: {
    [K in RunEvent['type']]?: (
      event: Extract<RunEvent, { type: K }>,
      at: number,
      node: Span | undefined,
      under: Context,
    ) => void;
  } = {
    'node.spawned': (event, at) => {
      this.#openNode(
        event.nodeId,
        event.path,
        event.parent,
        event.depth,
        event.provider,
        at,
        false,
      );
    },
    'node.resumed': (event, at) => {
      this.#openNode(event.nodeId, event.path, undefined, 0, event.provider, at, true);
    },
    'node.end': (event, at, node) => {
      if (node === undefined || event.nodeId === undefined) return;
      node.setAttribute('arbor.status', event.status);
      if (event.status !== 'completed')
        node.setStatus({
          code: SpanStatusCode.ERROR,
          ...(event.reason === undefined ? {} : { message: event.reason }),
        });
      node.end(at);
      this.#nodes.delete(event.nodeId);
    },
    'model.call': (event, at, _node, under) => {
      const span = this.#start(
        `chat ${event.model}`,
        {
          'gen_ai.operation.name': 'chat',
          'gen_ai.request.model': event.model,
          'gen_ai.response.model': event.model,
          'gen_ai.usage.input_tokens': event.inputTokens,
          'gen_ai.usage.output_tokens': event.outputTokens,
          'gen_ai.response.finish_reasons': [event.finishReason],
          'arbor.endpoint': event.endpoint,
          'arbor.step': event.step,
          ...(this.#capture && event.text !== undefined ? { 'gen_ai.completion': event.text } : {}),
          ...(this.#capture && this.#prompt !== undefined && event.nodeId !== undefined
            ? { 'gen_ai.prompt': JSON.stringify(this.#prompt(event.nodeId)) }
            : {}),
        },
        under,
        at - event.ms,
      );
      span.end(at);
    },
    'model.error': (event, at, node) => {
      (node ?? this.#run).addEvent(
        'model.error',
        { 'arbor.endpoint': event.endpoint, 'error.type': event.kind },
        at,
      );
    },
    'tool.call': (event, at, _node, under) => {
      const span = this.#start(
        `execute_tool ${event.name}`,
        {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': event.name,
          'gen_ai.tool.call.id': event.id,
          ...(this.#capture && event.args !== undefined
            ? { 'arbor.tool.args': JSON.stringify(event.args) }
            : {}),
        },
        under,
        at,
      );
      this.#open.set(`tool:${event.nodeId ?? ''}:${event.id}`, span);
    },
    'tool.result': (event, at) => {
      const key = `tool:${event.nodeId ?? ''}:${event.id}`;
      const span = this.#open.get(key);
      if (span === undefined) return;
      span.setAttribute('arbor.tool.is_error', event.isError);
      if (event.isError) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end(at);
      this.#open.delete(key);
    },
    'gate.opened': (event, at, _node, under) => {
      if (event.gate === undefined) return;
      this.#open.set(
        `gate:${event.gate}`,
        this.#start(
          'arbor.gate.wait',
          {
            'arbor.gate': event.gate,
            ...(event.tool === undefined ? {} : { 'arbor.tool': event.tool }),
          },
          under,
          at,
        ),
      );
    },
    'gate.closed': (event, at) => {
      const span = this.#open.get(`gate:${event.gate ?? ''}`);
      if (span === undefined) return;
      span.setAttribute('arbor.gate.via', event.via);
      if (event.answered !== undefined) span.setAttribute('arbor.gate.answered', event.answered);
      span.end(at);
      this.#open.delete(`gate:${event.gate ?? ''}`);
    },
    'spawn.waiting': (event, at, _node, under) => {
      this.#open.set(
        `spawn:${event.nodeId ?? ''}`,
        this.#start('arbor.spawn.wait', { 'arbor.wait.for': event.for }, under, at),
      );
    },
    'net.traffic': (event, at, _node, under) => {
      this.#start(
        `egress ${event.host}:${event.port}`,
        {
          'server.address': event.host,
          'server.port': event.port,
          'arbor.command': event.command,
          'arbor.egress.connections': event.connections,
          'arbor.egress.bytes_up': event.bytesUp,
          'arbor.egress.bytes_down': event.bytesDown,
        },
        under,
        at - event.ms,
      ).end(at);
    },
    'net.refused': (event, at, node) => {
      (node ?? this.#run).addEvent(
        'net.refused',
        {
          'server.address': event.host,
          'server.port': event.port,
          'arbor.egress.why': event.why,
          ...(event.command === undefined ? {} : { 'arbor.command': event.command }),
        },
        at,
      );
    },
    'spawn.waited': (event, at) => {
      const span = this.#open.get(`spawn:${event.nodeId ?? ''}`);
      span?.end(at);
      this.#open.delete(`spawn:${event.nodeId ?? ''}`);
    },
  };

  /** A node's span, with the id its payload's `traceparent` names, under its caller's. */
  #openNode(
    nodeId: string | undefined,
    path: string | undefined,
    parentId: string | undefined,
    depth: number,
    provider: string,
    at: number,
    resumed: boolean,
  ): void {
    if (nodeId === undefined) return;
    const parent = (parentId === undefined ? undefined : this.#nodes.get(parentId)) ?? this.#run;
    const span = this.#start(
      `node ${path ?? nodeId}`,
      {
        'arbor.node.id': nodeId,
        'arbor.node.path': path ?? '',
        'arbor.node.depth': depth,
        'arbor.provider': provider,
        ...(resumed ? { 'arbor.resumed': true } : {}),
      },
      trace.setSpan(ROOT_CONTEXT, parent),
      at,
      spanIdOf(this.#runId, nodeId),
    );
    this.#nodes.set(nodeId, span);
  }

  end(status: string, reason?: string): void {
    const now = Date.now();
    for (const span of this.#open.values()) span.end(now);
    this.#open.clear();
    for (const span of this.#nodes.values()) span.end(now);
    this.#nodes.clear();
    this.#run.setAttribute('arbor.status', status);
    if (status !== 'completed')
      this.#run.setStatus({
        code: SpanStatusCode.ERROR,
        ...(reason === undefined ? {} : { message: reason }),
      });
    this.#run.end(now);
  }
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
