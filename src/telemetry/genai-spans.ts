import type { RunEventOf } from '../protocol/index.js';
import { endpointFacts, type EndpointFacts } from './genai-provider.js';
import { inputMessages, outputMessages, systemInstructions } from './genai-messages.js';
import type { OperationAttributes } from './genai-metrics.js';
import type { ModelExchange, NodeAgent } from './tracing.js';

/**
 * The GenAI conventions' span attributes of arbor's nodes, model calls and tool calls (beside
 * arbor's own `arbor.*` attributes, which the trace adds).
 */

/** A span's attributes: the values OpenTelemetry takes. */
export type SpanAttributes = Record<string, string | number | boolean | string[]>;

/** The agent name of a node: its place in the tree, unique in its run and stable across runs. */
export function agentName(path: string): string {
  return `node ${path}`;
}

/** An `invoke_agent` span's attributes: the node as an agent of the run's conversation. */
export function agentAttributes(
  runId: string,
  nodeId: string,
  path: string,
  agent: NodeAgent | undefined,
): SpanAttributes {
  const facts = agent === undefined ? undefined : endpointFacts(agent.intelligence, 0);
  return {
    'gen_ai.operation.name': 'invoke_agent',
    'gen_ai.agent.name': agentName(path),
    'gen_ai.agent.id': nodeId,
    'gen_ai.conversation.id': runId,
    ...(facts === undefined
      ? {}
      : { 'gen_ai.provider.name': facts.provider, 'gen_ai.request.model': facts.model }),
  };
}

/** A model call's operation, as both its span and the metrics name it. */
export function chatOperation(
  event: { endpoint: number; model?: string | undefined; requestModel?: string | undefined },
  agent: NodeAgent | undefined,
): { attributes: OperationAttributes; facts: EndpointFacts | undefined } {
  const facts = agent === undefined ? undefined : endpointFacts(agent.intelligence, event.endpoint);
  const requestModel = event.requestModel ?? facts?.model ?? event.model;
  return {
    facts,
    attributes: {
      'gen_ai.operation.name': 'chat',
      // Unknown only for a node the store has no record of; `_OTHER` is the conventions' fallback.
      'gen_ai.provider.name': facts?.provider ?? '_OTHER',
      ...(requestModel === undefined ? {} : { 'gen_ai.request.model': requestModel }),
      ...(event.model === undefined ? {} : { 'gen_ai.response.model': event.model }),
      ...(facts === undefined
        ? {}
        : { 'server.address': facts.address, 'server.port': facts.port }),
    },
  };
}

/** A `chat` span's attributes: the operation, the request's settings, the usage, why it stopped. */
export function chatAttributes(
  runId: string,
  event: RunEventOf<'model.call'>,
  operation: ReturnType<typeof chatOperation>,
): SpanAttributes {
  const sampling = operation.facts?.sampling ?? {};
  const attributes: SpanAttributes = {
    ...(operation.attributes as SpanAttributes),
    'gen_ai.conversation.id': runId,
    'gen_ai.usage.input_tokens': event.inputTokens,
    'gen_ai.usage.output_tokens': event.outputTokens,
    'gen_ai.response.finish_reasons': [event.finishReason],
  };
  const optional: [string, string | number | string[] | undefined][] = [
    ['gen_ai.usage.cache_read.input_tokens', event.cacheReadTokens],
    ['gen_ai.usage.cache_creation.input_tokens', event.cacheWriteTokens],
    ['gen_ai.usage.reasoning.output_tokens', event.reasoningTokens],
    ['gen_ai.request.max_tokens', sampling.max_output_tokens],
    ['gen_ai.request.temperature', sampling.temperature],
    ['gen_ai.request.top_p', sampling.top_p],
    ['gen_ai.request.seed', sampling.seed],
    ['gen_ai.request.stop_sequences', sampling.stop],
  ];
  for (const [key, value] of optional) if (value !== undefined) attributes[key] = value;
  return attributes;
}

/**
 * A `chat` span's content, under `capture_content` only: the messages sent, the answer, the system
 * prompt, as JSON in the conventions' shapes. Reasoning is never among them.
 */
export function chatContent(
  event: RunEventOf<'model.call'>,
  exchange: ModelExchange,
  agent: NodeAgent | undefined,
): SpanAttributes {
  const answer =
    exchange.output?.role === 'assistant'
      ? exchange.output
      : { role: 'assistant' as const, text: event.text ?? '', tool_calls: [] };
  return {
    'gen_ai.input.messages': JSON.stringify(inputMessages(exchange.input)),
    'gen_ai.output.messages': JSON.stringify(outputMessages(answer, event.finishReason)),
    ...(agent?.system === undefined
      ? {}
      : { 'gen_ai.system_instructions': JSON.stringify(systemInstructions(agent.system)) }),
  };
}

/** An `execute_tool` span's attributes; the arguments only under `capture_content`. */
export function toolAttributes(event: RunEventOf<'tool.call'>, capture: boolean): SpanAttributes {
  return {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': event.name,
    'gen_ai.tool.call.id': event.id,
    // Every tool arbor offers a model is a function the model fills in and arbor runs.
    'gen_ai.tool.type': 'function',
    ...(capture && event.args !== undefined
      ? {
          'gen_ai.tool.call.arguments': JSON.stringify(event.args),
          'arbor.tool.args': JSON.stringify(event.args),
        }
      : {}),
  };
}
