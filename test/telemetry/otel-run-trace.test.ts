import { describe, expect, it } from 'vitest';
import {
  IntelConfigSchema,
  type RunEvent,
  type RunEventBody,
  type TranscriptMessage,
} from '../../src/protocol/index.js';
import { OtelTracing } from '../../src/telemetry/otel-tracing.js';
import type { RunNodes } from '../../src/telemetry/tracing.js';
import { attr, otlpReceiver, type OtlpHistogramPoint } from '../helpers/otlp-receiver.js';

const RUN = 'run-gen-ai';
const NODE = 'node-root';
/** Stands for a thinking block's text: it must never reach a span. */
const THOUGHT = 'PRIVATE-THOUGHT-7d1f';

const INTEL = IntelConfigSchema.parse({
  endpoints: [
    { url: 'https://api.anthropic.com/v1', dialect: 'anthropic' },
    { url: 'https://example.openai.azure.com/openai', dialect: 'openai', model: 'gpt-backup' },
  ],
  model: 'claude-x',
  sampling: { max_output_tokens: 512, temperature: 0.5 },
});

const TRANSCRIPT: TranscriptMessage[] = [
  { role: 'user', text: 'Weigh the parcel.' },
  {
    role: 'assistant',
    tool_calls: [{ id: 'call-1', name: 'scale.read', args: { unit: 'kg' } }],
    reasoning: {
      dialect: 'anthropic',
      model: 'claude-x',
      blocks: [{ type: 'thinking', thinking: THOUGHT, signature: 'sig' }],
    },
  },
  { role: 'tool', id: 'call-1', name: 'scale.read', content: '2.5 kg', is_error: false },
  {
    role: 'assistant',
    text: 'It weighs 2.5 kg.',
    tool_calls: [],
    reasoning: { dialect: 'anthropic', model: 'claude-x', blocks: [{ thinking: THOUGHT }] },
  },
];

/** The store's side, as the runtime gives it: the node's agent and its latest exchange. */
const NODES: RunNodes = {
  agent: (nodeId) =>
    nodeId === NODE ? { intelligence: INTEL, system: 'You are an agent run by arbor.' } : undefined,
  exchange: () => ({ input: TRANSCRIPT.slice(0, -1), output: TRANSCRIPT.at(-1) }),
};

function placed(body: RunEventBody, at: number): RunEvent {
  return { ...body, ts: new Date(at).toISOString(), runId: RUN, nodeId: NODE, path: '0' };
}

/** One node's life: a failed attempt, a call that answers with cache and reasoning tokens, a tool. */
function playRun(tracing: OtelTracing): void {
  const trace = tracing.begin(RUN, { name: 'arbor run', nodes: NODES });
  const t0 = Date.now();
  const events: RunEventBody[] = [
    { type: 'node.spawned', mode: 'process', provider: 'process', depth: 0 },
    { type: 'model.error', endpoint: 0, kind: 'status_529', ms: 250 },
    {
      type: 'model.call',
      step: 1,
      endpoint: 1,
      model: 'gpt-backup-2025',
      ms: 1500,
      inputTokens: 1000,
      outputTokens: 40,
      cacheReadTokens: 800,
      cacheWriteTokens: 150,
      reasoningTokens: 12,
      finishReason: 'tool_calls',
      toolCalls: 1,
      text: '',
    },
    { type: 'tool.call', id: 'call-1', name: 'scale.read', args: { unit: 'kg' } },
    {
      type: 'tool.result',
      id: 'call-1',
      name: 'scale.read',
      isError: false,
      ms: 3,
      content: '2.5 kg',
    },
    { type: 'node.end', status: 'completed', via: 'result', exitCode: 0 },
  ];
  events.forEach((body, i) => {
    trace.event(placed(body, t0 + i * 10));
  });
  trace.end('completed');
}

async function tracedRun(captureContent: boolean) {
  const collector = await otlpReceiver();
  const tracing = await OtelTracing.create({}, { endpoint: collector.url, captureContent });
  playRun(tracing);
  await tracing.shutdown(5000);
  return collector;
}

const point = (points: OtlpHistogramPoint[] | undefined, key: string, value: string) =>
  points?.find((p) => attr(p, key) === value);

describe('GenAI conventions in spans', () => {
  it('names an agent, a model call and a tool call as the conventions do, with their attributes', async () => {
    const collector = await tracedRun(false);
    const byName = (name: string) => collector.spans.find((s) => s.name === name);
    const agent = byName('invoke_agent node 0');
    expect(attr(agent, 'gen_ai.operation.name')).toBe('invoke_agent');
    expect(attr(agent, 'gen_ai.agent.name')).toBe('node 0');
    expect(attr(agent, 'gen_ai.agent.id')).toBe(NODE);
    expect(attr(agent, 'gen_ai.conversation.id')).toBe(RUN);
    expect(attr(agent, 'gen_ai.provider.name')).toBe('anthropic');
    expect(attr(agent, 'gen_ai.request.model')).toBe('claude-x');
    expect(attr(agent, 'arbor.node.path')).toBe('0');

    // The call that answered went to the second endpoint: its provider, model and server.
    const chat = byName('chat gpt-backup');
    expect(chat?.parentSpanId).toBe(agent?.spanId);
    expect(
      Object.fromEntries(chat?.attributes.map((a) => [a.key, attr(chat, a.key)]) ?? []),
    ).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'azure.ai.openai',
      'gen_ai.request.model': 'gpt-backup',
      'gen_ai.response.model': 'gpt-backup-2025',
      'gen_ai.conversation.id': RUN,
      'server.address': 'example.openai.azure.com',
      'server.port': 443,
      'gen_ai.usage.input_tokens': 1000,
      'gen_ai.usage.output_tokens': 40,
      'gen_ai.usage.cache_read.input_tokens': 800,
      'gen_ai.usage.cache_creation.input_tokens': 150,
      'gen_ai.usage.reasoning.output_tokens': 12,
      'gen_ai.response.finish_reasons': ['tool_calls'],
      'gen_ai.request.max_tokens': 512,
      'gen_ai.request.temperature': 0.5,
      'arbor.endpoint': 1,
      'arbor.step': 1,
    });

    const tool = byName('execute_tool scale.read');
    expect(tool?.parentSpanId).toBe(agent?.spanId);
    expect(attr(tool, 'gen_ai.operation.name')).toBe('execute_tool');
    expect(attr(tool, 'gen_ai.tool.name')).toBe('scale.read');
    expect(attr(tool, 'gen_ai.tool.call.id')).toBe('call-1');
    expect(attr(tool, 'gen_ai.tool.type')).toBe('function');

    // Content is captured only when asked for, and the deprecated attributes are gone.
    const keys = new Set(collector.spans.flatMap((s) => s.attributes.map((a) => a.key)));
    for (const key of [
      'gen_ai.input.messages',
      'gen_ai.output.messages',
      'gen_ai.system_instructions',
      'gen_ai.tool.call.arguments',
      'gen_ai.tool.call.result',
      'gen_ai.prompt',
      'gen_ai.completion',
    ])
      expect(keys.has(key), key).toBe(false);
  });

  it('captures the messages in the conventions’ shape under capture_content, never the reasoning', async () => {
    const collector = await tracedRun(true);
    const chat = collector.spans.find((s) => s.name.startsWith('chat '));
    expect(JSON.parse(String(attr(chat, 'gen_ai.input.messages')))).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'Weigh the parcel.' }] },
      {
        role: 'assistant',
        parts: [{ type: 'tool_call', id: 'call-1', name: 'scale.read', arguments: { unit: 'kg' } }],
      },
      { role: 'tool', parts: [{ type: 'tool_call_response', id: 'call-1', response: '2.5 kg' }] },
    ]);
    expect(JSON.parse(String(attr(chat, 'gen_ai.output.messages')))).toEqual([
      {
        role: 'assistant',
        parts: [{ type: 'text', content: 'It weighs 2.5 kg.' }],
        finish_reason: 'tool_call',
      },
    ]);
    expect(JSON.parse(String(attr(chat, 'gen_ai.system_instructions')))).toEqual([
      { type: 'text', content: 'You are an agent run by arbor.' },
    ]);
    const tool = collector.spans.find((s) => s.name === 'execute_tool scale.read');
    expect(JSON.parse(String(attr(tool, 'gen_ai.tool.call.arguments')))).toEqual({ unit: 'kg' });
    expect(JSON.parse(String(attr(tool, 'gen_ai.tool.call.result')))).toBe('2.5 kg');
    // The thinking blocks the transcript holds reach no span, in any attribute.
    const exported = JSON.stringify(collector.spans);
    expect(exported).not.toContain(THOUGHT);
    expect(exported).not.toContain('"sig"');
    expect(exported).not.toContain('thinking');
  });
});

describe('GenAI client metrics', () => {
  it('exports token usage and operation duration with the conventions’ names, units, buckets and attributes', async () => {
    const collector = await tracedRun(false);
    const tokens = collector.metric('gen_ai.client.token.usage');
    expect(tokens?.unit).toBe('{token}');
    const input = point(tokens?.histogram?.dataPoints, 'gen_ai.token.type', 'input');
    const output = point(tokens?.histogram?.dataPoints, 'gen_ai.token.type', 'output');
    expect([Number(input?.count), input?.sum]).toEqual([1, 1000]);
    expect([Number(output?.count), output?.sum]).toEqual([1, 40]);
    expect(input?.explicitBounds).toEqual([
      1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864,
    ]);
    expect(attr(input, 'gen_ai.operation.name')).toBe('chat');
    expect(attr(input, 'gen_ai.provider.name')).toBe('azure.ai.openai');
    expect(attr(input, 'gen_ai.request.model')).toBe('gpt-backup');
    expect(attr(input, 'gen_ai.response.model')).toBe('gpt-backup-2025');
    expect(attr(input, 'server.address')).toBe('example.openai.azure.com');

    const duration = collector.metric('gen_ai.client.operation.duration');
    expect(duration?.unit).toBe('s');
    const points = duration?.histogram?.dataPoints ?? [];
    expect(points).toHaveLength(2);
    const answered = points.find((p) => attr(p, 'error.type') === undefined);
    expect([Number(answered?.count), answered?.sum]).toEqual([1, 1.5]);
    expect(answered?.explicitBounds).toEqual([
      0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
    ]);
    // The failed attempt, at the first endpoint: its own provider and model, and why it failed.
    const failed = point(points, 'error.type', 'status_529');
    expect([Number(failed?.count), failed?.sum]).toEqual([1, 0.25]);
    expect(attr(failed, 'gen_ai.provider.name')).toBe('anthropic');
    expect(attr(failed, 'gen_ai.request.model')).toBe('claude-x');
  });
});
