import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { attr, otlpReceiver as receiver } from '../helpers/otlp-receiver.js';
import type { PlaybookInput } from '../../src/testing/index.js';
import { fakeLlm } from '../helpers/fake-llm.js';
import { runArbor } from '../helpers/run-arbor.js';
import { tempDb } from '../helpers/arbor-process.js';

/** Root → middle → leaf, each with its own token counts. */
const THREE: PlaybookInput = {
  scripts: [
    {
      match: { contains: 'Leaf:' },
      steps: [{ text: 'leaf done', usage: { input_tokens: 11, output_tokens: 3 } }],
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

describe('OpenTelemetry traces of a run', () => {
  it('exports one trace for a three-level delegation across processes, nodes nested, model calls with GenAI attributes', async () => {
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
    const [root, mid, leaf] = ['node 0', 'node 0.1', 'node 0.1.1'].map(byName);
    expect(root?.parentSpanId).toBe(runSpan?.spanId);
    expect(mid?.parentSpanId).toBe(root?.spanId);
    expect(leaf?.parentSpanId).toBe(mid?.spanId);
    expect(attr(leaf, 'arbor.status')).toBe('completed');
    const calls = spans.filter((s) => s.name.startsWith('chat '));
    expect(calls).toHaveLength(5);
    const leafCall = calls.find((s) => s.parentSpanId === leaf?.spanId);
    expect(attr(leafCall, 'gen_ai.operation.name')).toBe('chat');
    expect(attr(leafCall, 'gen_ai.usage.input_tokens')).toBe(11);
    expect(attr(leafCall, 'gen_ai.usage.output_tokens')).toBe(3);
    expect(attr(leafCall, 'gen_ai.response.finish_reasons')).toEqual(['stop']);
    const tools = spans.filter((s) => s.name === 'execute_tool subagent.run');
    expect(tools.map((s) => s.parentSpanId).sort()).toEqual([root?.spanId, mid?.spanId].sort());
    // No content unless asked for.
    expect(calls.every((s) => attr(s, 'gen_ai.completion') === undefined)).toBe(true);
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

  it('puts the prompt and the completion in model-call spans when [observability] capture_content is on', async () => {
    const collector = await receiver();
    const llm = await fakeLlm({ scripts: [{ steps: [{ text: 'the captured answer' }] }] });
    const db = tempDb();
    const config = path.join(path.dirname(db), 'arbor.toml');
    writeFileSync(
      config,
      `[observability]\notlp_endpoint = "${collector.url}"\ncapture_content = true\n`,
    );
    const run = await runArbor(
      ['run', '--intel', llm.url, '--model', 'm', '--config', config, 'Say the secret word.'],
      { env: { ARBOR_DB: db } },
    );
    expect(run.code, run.stderr).toBe(0);
    const call = collector.spans.find((s) => s.name.startsWith('chat '));
    expect(attr(call, 'gen_ai.completion')).toBe('the captured answer');
    const prompt = JSON.parse(String(attr(call, 'gen_ai.prompt'))) as {
      role: string;
      text?: string;
    }[];
    expect(prompt.find((m) => m.role === 'user')?.text).toContain('Say the secret word.');
    expect(prompt.some((m) => m.role === 'assistant')).toBe(false);
  });
});
