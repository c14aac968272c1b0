import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Span,
} from '@opentelemetry/api';
import type { RunEvent } from '../protocol/index.js';
import { spanIdOf } from '../protocol/trace-ids.js';
import type { GenAiMetrics } from './genai-metrics.js';
import {
  agentAttributes,
  agentName,
  chatAttributes,
  chatContent,
  chatOperation,
  toolAttributes,
  type SpanAttributes,
} from './genai-spans.js';
import type { NodeAgent, RunNodes, RunTrace } from './tracing.js';

/** Starts a span: its name, attributes, parent, start time, kind and (for a node) its set id. */
export type StartSpan = (
  name: string,
  attributes: SpanAttributes,
  parent: Context,
  options?: { startTime?: number; spanId?: string; kind?: SpanKind },
) => Span;

/**
 * One run's spans, made from its events as the supervisor records them, named as the GenAI
 * conventions name them: the run, each node as an agent (`invoke_agent node PATH`, the id its
 * payload's `traceparent` names, under its caller's), each model call (`chat MODEL`), each tool
 * call (`execute_tool NAME`), each wait for a person or for a spawn slot. Each model call is
 * recorded in the GenAI client metrics too.
 */
export class OtelRunTrace implements RunTrace {
  readonly traceparent: string;
  readonly #runId: string;
  readonly #run: Span;
  readonly #start: StartSpan;
  readonly #capture: boolean;
  readonly #nodesSource: RunNodes | undefined;
  readonly #metrics: GenAiMetrics | undefined;
  readonly #nodes = new Map<string, Span>();
  /** Each node's recorded agent, read once (undefined: the store has none). */
  readonly #agents = new Map<string, NodeAgent | undefined>();
  readonly #open = new Map<string, Span>();

  constructor(options: {
    runId: string;
    runSpan: Span;
    traceparent: string;
    start: StartSpan;
    capture: boolean;
    nodes?: RunNodes;
    metrics?: GenAiMetrics;
  }) {
    this.#runId = options.runId;
    this.#run = options.runSpan;
    this.traceparent = options.traceparent;
    this.#start = options.start;
    this.#capture = options.capture;
    this.#nodesSource = options.nodes;
    this.#metrics = options.metrics;
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
      if (event.status !== 'completed') {
        node.setAttribute('error.type', event.status);
        node.setStatus({
          code: SpanStatusCode.ERROR,
          ...(event.reason === undefined ? {} : { message: event.reason }),
        });
      }
      node.end(at);
      this.#nodes.delete(event.nodeId);
    },
    'model.call': (event, at, _node, under) => {
      const agent = this.#agentOf(event.nodeId);
      const operation = chatOperation(event, agent);
      const content =
        this.#capture && this.#nodesSource !== undefined && event.nodeId !== undefined
          ? chatContent(event, this.#nodesSource.exchange(event.nodeId), agent)
          : {};
      this.#start(
        `chat ${operation.attributes['gen_ai.request.model'] ?? event.model}`,
        {
          ...chatAttributes(this.#runId, event, operation),
          'arbor.endpoint': event.endpoint,
          'arbor.step': event.step,
          ...content,
        },
        under,
        { startTime: at - event.ms, kind: SpanKind.CLIENT },
      ).end(at);
      this.#metrics?.recordCall(operation.attributes, event, event.ms);
    },
    'model.error': (event, at, node) => {
      (node ?? this.#run).addEvent(
        'model.error',
        { 'arbor.endpoint': event.endpoint, 'error.type': event.kind },
        at,
      );
      if (event.ms === undefined) return;
      const { attributes } = chatOperation(event, this.#agentOf(event.nodeId));
      this.#metrics?.recordFailure(attributes, event.kind, event.ms);
    },
    'tool.call': (event, at, _node, under) => {
      const span = this.#start(
        `execute_tool ${event.name}`,
        toolAttributes(event, this.#capture),
        under,
        {
          startTime: at,
        },
      );
      this.#open.set(`tool:${event.nodeId ?? ''}:${event.id}`, span);
    },
    'tool.result': (event, at) => {
      const key = `tool:${event.nodeId ?? ''}:${event.id}`;
      const span = this.#open.get(key);
      if (span === undefined) return;
      span.setAttribute('arbor.tool.is_error', event.isError);
      if (this.#capture && !event.isError && event.content !== undefined)
        span.setAttribute('gen_ai.tool.call.result', JSON.stringify(event.content));
      if (event.isError) {
        span.setAttribute('error.type', event.refused === true ? 'refused' : 'tool_error');
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
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
          { startTime: at },
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
        this.#start('arbor.spawn.wait', { 'arbor.wait.for': event.for }, under, { startTime: at }),
      );
    },
    'spawn.waited': (event, at) => {
      const span = this.#open.get(`spawn:${event.nodeId ?? ''}`);
      span?.end(at);
      this.#open.delete(`spawn:${event.nodeId ?? ''}`);
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
        { startTime: at - event.ms },
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
  };

  /** The node's recorded agent, read from the store once. */
  #agentOf(nodeId: string | undefined): NodeAgent | undefined {
    if (nodeId === undefined || this.#nodesSource === undefined) return undefined;
    if (!this.#agents.has(nodeId)) this.#agents.set(nodeId, this.#nodesSource.agent(nodeId));
    return this.#agents.get(nodeId);
  }

  /** A node's `invoke_agent` span, with the id its payload's `traceparent` names, under its caller's. */
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
    const where = path ?? nodeId;
    const span = this.#start(
      `invoke_agent ${agentName(where)}`,
      {
        ...agentAttributes(this.#runId, nodeId, where, this.#agentOf(nodeId)),
        'arbor.node.id': nodeId,
        'arbor.node.path': path ?? '',
        'arbor.node.depth': depth,
        'arbor.provider': provider,
        ...(resumed ? { 'arbor.resumed': true } : {}),
      },
      trace.setSpan(ROOT_CONTEXT, parent),
      { startTime: at, spanId: spanIdOf(this.#runId, nodeId) },
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
