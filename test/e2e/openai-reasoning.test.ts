import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Usage } from '../../src/protocol/index.js';
import { tempDb } from '../helpers/arbor-process.js';
import { fakeLlm } from '../helpers/fake-llm.js';
import { runArbor } from '../helpers/run-arbor.js';

// `arbor run` with a process child against the fake LLM playing an OpenAI reasoning model
// (`o3-mini`): it refuses `max_tokens`, reports reasoning tokens, and reads a repeated prompt
// prefix from its cache.

interface Report {
  status: string;
  reason?: string;
  usage: Usage;
  nodes: { path: string; status: string; usage: Usage }[];
}

interface ChatBody {
  messages: { role: string; content: string | null }[];
}

const PLAYBOOK = {
  scripts: [
    {
      match: { contains: 'Child: note the findings' },
      steps: [
        { tool_calls: [{ name: 'memory.set', args: { key: 'finding', value: 'cached' } }] },
        { text: 'child done' },
      ],
    },
    {
      steps: [
        {
          tool_calls: [
            {
              name: 'subagent.run',
              args: { instruction: 'Child: note the findings.', provider: 'process' },
            },
          ],
        },
        { text: 'all done' },
      ],
    },
  ],
};

async function run(maxTokensField: 'max_tokens' | 'max_completion_tokens') {
  const server = await fakeLlm(PLAYBOOK);
  const dir = await mkdtemp(join(tmpdir(), 'arbor-oai-'));
  const config = join(dir, 'arbor.toml');
  await writeFile(
    config,
    [
      '[intelligence]',
      'model = "o3-mini"',
      '[intelligence.sampling]',
      'max_output_tokens = 800',
      'reasoning_effort = "low"',
      '[[intelligence.endpoint]]',
      `url = "${server.url}"`,
      // The fake is plain http on 127.0.0.1, where the default field is `max_tokens`; OpenAI's
      // own host defaults to `max_completion_tokens` (test/intel/openai-request.test.ts).
      `max_tokens_field = "${maxTokensField}"`,
      '',
    ].join('\n'),
  );
  const result = await runArbor(['run', '--config', config, '--json', 'Coordinate the work.'], {
    env: { ARBOR_DB: tempDb(), ARBOR_API_KEY: 'sk-e2e-0123456789abcdef' },
  });
  const report = result.stdout === '' ? undefined : (JSON.parse(result.stdout) as Report);
  return { ...result, server, report };
}

describe('an OpenAI reasoning model through arbor run', () => {
  it('completes with the cap in max_completion_tokens; usage has reasoning and cached tokens', async () => {
    const { code, stderr, server, report } = await run('max_completion_tokens');
    expect(code, stderr).toBe(0);
    expect(report?.status).toBe('completed');
    // Four calls: the root delegates and answers, the child calls a tool and answers.
    expect(server.requests).toHaveLength(4);
    for (const request of server.requests) {
      expect(request.status).toBe(200);
      expect(request.body).toMatchObject({ max_completion_tokens: 800, reasoning_effort: 'low' });
      expect(request.body).not.toHaveProperty('max_tokens');
    }
    const child = report?.nodes.find((node) => node.path === '0.1');
    const childBodies = server.requests
      .map((r) => r.body as ChatBody)
      .filter((b) => b.messages.some((m) => m.content === 'Child: note the findings.'));
    expect(childBodies).toHaveLength(2);
    // The child's second call repeats its first as a prefix: the fake reads it from the cache.
    const cached = child?.usage.cache_read_tokens ?? 0;
    expect(cached).toBeGreaterThanOrEqual(1024);
    expect((cached - 1024) % 128).toBe(0);
    expect(child?.usage.input_tokens).toBeGreaterThan(cached);
    // Effort `low`: the fake's 64 reasoning tokens a call, two calls, counted in the output.
    expect(child?.usage.reasoning_tokens).toBe(128);
    expect(child?.usage.output_tokens).toBeGreaterThan(128);
    // The run's total sums both nodes' splits.
    expect(report?.usage.reasoning_tokens).toBe(256);
    expect(report?.usage.cache_read_tokens).toBeGreaterThanOrEqual(cached + 1024);
  });

  it('fails with the provider’s refusal when the cap goes in max_tokens', async () => {
    const { code, stderr, server, report } = await run('max_tokens');
    expect(code).not.toBe(0);
    expect(report?.status).toBe('failed');
    expect(`${report?.reason ?? ''}${stderr}`).toContain(
      "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
    );
    expect(server.requests[0]).toMatchObject({ status: 400, body: { max_tokens: 800 } });
  });
});
