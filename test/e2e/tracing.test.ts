import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { attr, otlpReceiver as receiver } from '../helpers/otlp-receiver.js';
import type { PlaybookInput } from '../../src/testing/index.js';
import { fakeLlm } from '../helpers/fake-llm.js';
import { runArbor } from '../helpers/run-arbor.js';
import { tempDb } from '../helpers/arbor-process.js';

/** Root → middle → leaf, each with its own token counts; the leaf's first attempt fails. */
const THREE: PlaybookInput = {
  scripts: [
    {
      match: { contains: 'Leaf:' },
      steps: [
        {
          text: 'leaf done',
          usage: { input_tokens: 11, output_tokens: 3 },
          faults: [{ status: 503 }],
        },
      ],
    },
    {
      match: { contains: 'Mid:' },
      steps: [
        {
          tool_calls: [{ name: 'subagent.run', args: { instruction: 'Leaf: look.' } }],
          usage: { input_tokens: 22, output_tokens: 4 },
        },
        { text: 'mid done', usage: { input_tokens: 23, output_tokens: 5 } },
      ],
    },
    {
      steps: [
        {
          tool_calls: [{ name: 'subagent.run', args: { instruction: 'Mid: delegate.' } }],
          usage: { input_tokens: 33, output_tokens: 6 },
        },
        { text: 'root done', usage: { input_tokens: 34, output_tokens: 7 } },
      ],
    },
  ],
};

/** A message of `gen_ai.input.messages` / `gen_ai.output.messages`. */
interface Message {
  role: string;
  parts: Record<string, unknown>[];
  finish_reason?: string;
}

/** Attributes that carry content: present only under `capture_content`. */
const CONTENT_KEYS = [
  'gen_ai.input.messages',
  'gen_ai.output.messages',
  'gen_ai.system_instructions',
  'gen_ai.tool.call.arguments',
];

describe('OpenTelemetry traces of a run', () => {
  it('exports one trace for a three-level delegation across processes: agents nested, model and tool calls as the GenAI conventions name them', async () => {
    const collector = await receiver();
    const llm = await fakeLlm(THREE);
    const run = await runArbor(['run', '--intel', llm.url, '--model', 'm', 'Coordinate.'], {
      env: {
        ARBOR_DB: tempDb(),
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_SERVICE_NAME: 'arbor-test',
      },
    });
    expect(run.code, run.stderr).toBe(0);
    const spans = collector.spans;
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(1);
    const byName = (name: string) => spans.find((s) => s.name === name);
    const runSpan = byName('arbor run');
    const runId = attr(runSpan, 'arbor.run_id');
    const [root, mid, leaf] = ['0', '0.1', '0.1.1'].map((path) =>
      byName(`invoke_agent node ${path}`),
    );
    expect(root?.parentSpanId).toBe(runSpan?.spanId);
    expect(mid?.parentSpanId).toBe(root?.spanId);
    expect(leaf?.parentSpanId).toBe(mid?.spanId);
    expect(attr(leaf, 'arbor.status')).toBe('completed');
    expect(attr(leaf, 'gen_ai.operation.name')).toBe('invoke_agent');
    expect(attr(leaf, 'gen_ai.agent.name')).toBe('node 0.1.1');
    expect(attr(leaf, 'gen_ai.agent.id')).toBe(attr(leaf, 'arbor.node.id'));
    expect(attr(leaf, 'gen_ai.conversation.id')).toBe(runId);
    expect(attr(leaf, 'gen_ai.provider.name')).toBe('openai');
    expect(attr(leaf, 'gen_ai.request.model')).toBe('m');

    const calls = spans.filter((s) => s.name.startsWith('chat '));
    expect(calls).toHaveLength(5);
    expect(calls.every((s) => s.name === 'chat m')).toBe(true);
    const leafCall = calls.find((s) => s.parentSpanId === leaf?.spanId);
    expect(attr(leafCall, 'gen_ai.operation.name')).toBe('chat');
    expect(attr(leafCall, 'gen_ai.provider.name')).toBe('openai');
    expect(attr(leafCall, 'gen_ai.request.model')).toBe('m');
    expect(attr(leafCall, 'gen_ai.response.model')).toBe('m');
    expect(attr(leafCall, 'gen_ai.conversation.id')).toBe(runId);
    expect(attr(leafCall, 'server.address')).toBe('127.0.0.1');
    expect(attr(leafCall, 'server.port')).toBe(Number(new URL(llm.url).port));
    expect(attr(leafCall, 'gen_ai.usage.input_tokens')).toBe(11);
    expect(attr(leafCall, 'gen_ai.usage.output_tokens')).toBe(3);
    expect(attr(leafCall, 'gen_ai.response.finish_reasons')).toEqual(['stop']);
    const tools = spans.filter((s) => s.name === 'execute_tool subagent.run');
    expect(tools.map((s) => s.parentSpanId).sort()).toEqual([root?.spanId, mid?.spanId].sort());
    expect(tools.every((s) => attr(s, 'gen_ai.operation.name') === 'execute_tool')).toBe(true);
    expect(tools.every((s) => attr(s, 'gen_ai.tool.name') === 'subagent.run')).toBe(true);
    expect(tools.every((s) => attr(s, 'gen_ai.tool.type') === 'function')).toBe(true);
    expect(tools.every((s) => typeof attr(s, 'gen_ai.tool.call.id') === 'string')).toBe(true);
    // No content unless asked for, and none of the deprecated attributes ever.
    const keys = new Set(spans.flatMap((s) => s.attributes.map((a) => a.key)));
    for (const key of [...CONTENT_KEYS, 'gen_ai.prompt', 'gen_ai.completion'])
      expect(keys.has(key), key).toBe(false);

    // The GenAI client metrics of every node's calls, each process's, exported at exit.
    const usage = collector.metric('gen_ai.client.token.usage');
    expect(usage?.unit).toBe('{token}');
    const tokens = (type: string) =>
      usage?.histogram?.dataPoints.find((p) => attr(p, 'gen_ai.token.type') === type);
    expect([Number(tokens('input')?.count), tokens('input')?.sum]).toEqual([5, 123]);
    expect([Number(tokens('output')?.count), tokens('output')?.sum]).toEqual([5, 25]);
    expect(attr(tokens('input'), 'gen_ai.provider.name')).toBe('openai');
    expect(attr(tokens('input'), 'gen_ai.request.model')).toBe('m');
    const duration = collector.metric('gen_ai.client.operation.duration');
    expect(duration?.unit).toBe('s');
    const answered = duration?.histogram?.dataPoints.find(
      (p) => attr(p, 'error.type') === undefined,
    );
    expect(Number(answered?.count)).toBe(5);
    expect(attr(answered, 'gen_ai.operation.name')).toBe('chat');
    const failed = duration?.histogram?.dataPoints.find(
      (p) => attr(p, 'error.type') === 'status_503',
    );
    expect(Number(failed?.count)).toBe(1);
  });

  it('exports nothing when no endpoint is set, and a collector that hangs does not hold the exit', async () => {
    const collector = await receiver();
    const llm = await fakeLlm({ scripts: [{ steps: [{ text: 'done' }] }] });
    const quiet = await runArbor(['run', '--intel', llm.url, '--model', 'm', 'Say done.'], {
      env: {
        ARBOR_DB: tempDb(),
        OTEL_EXPORTER_OTLP_ENDPOINT: undefined,
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: undefined,
      },
    });
    expect(quiet.code).toBe(0);
    expect(collector.posts()).toBe(0);

    const stuck = await receiver({ hang: true });
    const started = Date.now();
    const run = await runArbor(['run', '--intel', llm.url, '--model', 'm', 'Say done.'], {
      env: {
        ARBOR_DB: tempDb(),
        OTEL_EXPORTER_OTLP_ENDPOINT: stuck.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      },
    });
    expect(run.code).toBe(0);
    expect(stuck.posts()).toBeGreaterThan(0);
    // The flush at exit is bounded (2 s); the run itself never waited on the collector.
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('puts the messages, the answer and the system prompt in model-call spans, scrubbed, when [observability] capture_content is on', async () => {
    const collector = await receiver();
    const key = 'arbk-Zt4Wq8Lm2Xc6Vb1N';
    const llm = await fakeLlm({
      scripts: [
        {
          steps: [
            { tool_calls: [{ name: 'subagent.run', args: { instruction: 'Child: look.' } }] },
            { text: `the captured answer, with ${key}` },
          ],
        },
      ],
    });
    const db = tempDb();
    const config = path.join(path.dirname(db), 'arbor.toml');
    writeFileSync(
      config,
      `[observability]\notlp_endpoint = "${collector.url}"\ncapture_content = true\n`,
    );
    const run = await runArbor(
      ['run', '--intel', llm.url, '--model', 'm', '--config', config, `Say the word ${key}.`],
      { env: { ARBOR_DB: db, ARBOR_API_KEY: key } },
    );
    expect(run.code, run.stderr).toBe(0);
    const root = collector.spans.find((s) => s.name === 'invoke_agent node 0');
    const calls = collector.spans.filter(
      (s) => s.name.startsWith('chat ') && s.parentSpanId === root?.spanId,
    );
    expect(calls).toHaveLength(2);
    const last = calls.find((s) => attr(s, 'arbor.step') === 2);
    const input = JSON.parse(String(attr(last, 'gen_ai.input.messages'))) as Message[];
    expect(input[0]?.role).toBe('user');
    expect(input[0]?.parts).toHaveLength(1);
    expect(input[0]?.parts[0]?.type).toBe('text');
    expect(input[0]?.parts[0]?.content).toContain('Say the word [redacted].');
    // The first call's answer and its tool's result, as the second call was sent them.
    expect(input[1]?.parts[0]).toMatchObject({ type: 'tool_call', name: 'subagent.run' });
    expect(input[2]).toMatchObject({ role: 'tool', parts: [{ type: 'tool_call_response' }] });
    expect(
      input.some((m) => m.role === 'assistant' && m.parts.some((p) => p.type === 'text')),
    ).toBe(false);
    expect(JSON.parse(String(attr(last, 'gen_ai.output.messages')))).toEqual([
      {
        role: 'assistant',
        parts: [{ type: 'text', content: 'the captured answer, with [redacted]' }],
        finish_reason: 'stop',
      },
    ]);
    const system = JSON.parse(String(attr(last, 'gen_ai.system_instructions'))) as {
      type: string;
      content: string;
    }[];
    expect(system[0]?.content).toContain('You are an agent run by arbor.');
    const tool = collector.spans.find((s) => s.name === 'execute_tool subagent.run');
    expect(JSON.parse(String(attr(tool, 'gen_ai.tool.call.arguments')))).toEqual({
      instruction: 'Child: look.',
    });
    expect(JSON.stringify(collector.spans)).not.toContain(key);
  });
});
