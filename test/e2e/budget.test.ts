import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDb } from '../helpers/arbor-process.js';
import { fakeLlm } from '../helpers/fake-llm.js';
import { runArbor } from '../helpers/run-arbor.js';

interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens?: number;
  cost_usd?: number;
}

interface Report {
  status: string;
  reason?: string;
  usage: Usage;
  nodes: { id: string; path: string; status: string; usage: Usage; subtree_usage: Usage }[];
}

/**
 * A model that never stops: every step calls a tool (with new arguments each time, so the loop
 * detector has nothing to catch) and uses `tokens` input tokens.
 */
function endless(tag: string, tokens: number, count = 400) {
  return Array.from({ length: count }, (_, i) => ({
    tool_calls: [{ name: 'memory.set', args: { key: `${tag}-${i}`, value: i } }],
    usage: { input_tokens: tokens, output_tokens: 0 },
  }));
}

async function run(playbook: unknown, args: string[], instruction: string, db = tempDb()) {
  const server = await fakeLlm(playbook as Parameters<typeof fakeLlm>[0]);
  const result = await runArbor(
    [
      'run',
      '--intel',
      server.url,
      '--model',
      'm',
      '--json',
      '--max-steps',
      '1000',
      ...args,
      instruction,
    ],
    { env: { ARBOR_DB: db } },
  );
  return {
    ...result,
    server,
    report: result.stdout === '' ? undefined : (JSON.parse(result.stdout) as Report),
  };
}

const total = (usage: Usage | undefined): number =>
  (usage?.input_tokens ?? 0) + (usage?.output_tokens ?? 0);

/** The requests one agent made: those whose user message is its instruction. */
function requestsOf(server: { requests: readonly { body: unknown }[] }, instruction: string) {
  return server.requests.filter((r) =>
    (r.body as { messages: { role: string; content: string }[] }).messages.some(
      (m) => m.role === 'user' && m.content === instruction,
    ),
  );
}

/** The JSON tool results in one request's conversation. */
function toolResults(body: unknown): Record<string, unknown>[] {
  return (body as { messages: { role: string; content: string }[] }).messages
    .filter((m) => m.role === 'tool')
    .map((m) => JSON.parse(m.content.replace(/^Error: /, '')) as Record<string, unknown>);
}

describe('budget', () => {
  it('stops a model that never stops calling tools at --max-tokens, exit 7', async () => {
    const { code, report, server, stderr } = await run(
      { scripts: [{ steps: endless('loop', 100) }] },
      ['--max-tokens', '1000'],
      'Keep working forever.',
    );
    expect(code, stderr).toBe(7);
    expect(report?.status).toBe('exhausted_tokens');
    expect(report?.reason).toContain('token budget spent: 1000 of 1000 tokens used');
    // Ten calls reach the ceiling exactly; the eleventh is never sent.
    expect(server.requests).toHaveLength(10);
    expect(total(report?.usage)).toBe(1000);
  });

  it('stops a money ceiling with the prices in the config, exit 7', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'arbor-budget-'));
    const config = join(dir, 'arbor.toml');
    // $0.01 per input token: a 100-token call costs $1.
    await writeFile(
      config,
      '[intelligence.prices.m]\ninput_per_mtok = 10000\noutput_per_mtok = 0\n',
    );
    const { code, report, server, stderr } = await run(
      { scripts: [{ steps: endless('spend', 100) }] },
      ['--config', config, '--budget-usd', '3.5'],
      'Spend money forever.',
    );
    expect(code, stderr).toBe(7);
    expect(report?.status).toBe('exhausted_budget');
    expect(report?.reason).toContain('money budget spent: $4.0000 of $3.5000 used');
    expect(server.requests).toHaveLength(4);
    expect(report?.usage.cost_usd).toBeCloseTo(4, 6);
  });

  it('stops a money ceiling with no prices configured: the default table prices a known model, exit 7', async () => {
    const server = await fakeLlm({ scripts: [{ steps: endless('spend', 100_000) }] });
    // gpt-4o-mini in the default table: $0.15 per million input tokens, so $0.015 a call.
    const result = await runArbor(
      [
        'run',
        '--intel',
        server.url,
        '--model',
        'gpt-4o-mini',
        '--json',
        '--max-steps',
        '1000',
        '--budget-usd',
        '0.04',
        'Spend money forever.',
      ],
      { env: { ARBOR_DB: tempDb() } },
    );
    const report = JSON.parse(result.stdout) as Report;
    expect(result.code, result.stderr).toBe(7);
    expect(report.status).toBe('exhausted_budget');
    expect(server.requests).toHaveLength(3);
    // The fake plays OpenAI's automatic caching: the repeated start of each prompt is read from the
    // cache, which the table prices at half the input rate ($0.075 per million).
    const cached = report.usage.cache_read_tokens ?? 0;
    expect(cached).toBeGreaterThan(0);
    const expected = ((300_000 - cached) * 0.15 + cached * 0.075) / 1_000_000;
    expect(report.usage.cost_usd).toBeCloseTo(expected, 9);
    expect(report.reason).toContain(`money budget spent: $${expected.toFixed(4)} of $0.0400 used`);
  });

  it('prices an in-process child’s calls as it prices a process child’s: in the supervisor, from the default table', async () => {
    const server = await fakeLlm({
      scripts: [
        {
          match: { contains: 'In-process helper' },
          steps: [{ text: 'helped', usage: { input_tokens: 2_000_000, output_tokens: 1_000_000 } }],
        },
        {
          match: { contains: 'Price the helper' },
          steps: [
            {
              tool_calls: [
                {
                  name: 'subagent.run',
                  args: { instruction: 'In-process helper', provider: 'spawn' },
                },
              ],
              usage: { input_tokens: 1_000_000, output_tokens: 0 },
            },
            { text: 'priced', usage: { input_tokens: 0, output_tokens: 0 } },
          ],
        },
      ],
    });
    const result = await runArbor(
      ['run', '--intel', server.url, '--model', 'gpt-4o-mini', '--json', 'Price the helper.'],
      { env: { ARBOR_DB: tempDb() } },
    );
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as Report;
    const byPath = new Map(report.nodes.map((n) => [n.path, n]));
    // gpt-4o-mini: $0.15 per million input tokens ($0.075 read from the cache, which the fake
    // reports for a prompt that repeats an earlier one's start), $0.60 per million output tokens.
    const cost = (usage: Usage | undefined, input: number, output: number): number => {
      const cached = usage?.cache_read_tokens ?? 0;
      return ((input - cached) * 0.15 + cached * 0.075 + output * 0.6) / 1_000_000;
    };
    const root = byPath.get('0')?.usage;
    const helper = byPath.get('0.1')?.usage;
    expect(root?.cost_usd).toBeCloseTo(cost(root, 1_000_000, 0), 9);
    expect(helper?.cost_usd).toBeCloseTo(cost(helper, 2_000_000, 1_000_000), 9);
    expect(report.usage.cost_usd).toBeCloseTo(
      cost(root, 1_000_000, 0) + cost(helper, 2_000_000, 1_000_000),
      9,
    );
  });

  it('stops a runaway grandchild at its grant while its sibling finishes, and its parent sees exhausted_tokens', async () => {
    const playbook = {
      scripts: [
        { match: { contains: 'Runaway worker' }, steps: endless('runaway', 100) },
        {
          match: { contains: 'Quick worker' },
          steps: [{ text: 'quick done', usage: { input_tokens: 7, output_tokens: 3 } }],
        },
        {
          match: { contains: 'Manage the workers' },
          steps: [
            {
              tool_calls: [
                {
                  name: 'subagent.run',
                  args: { instruction: 'Runaway worker', budget: { tokens: 500 } },
                },
                { name: 'subagent.run', args: { instruction: 'Quick worker' } },
              ],
              usage: { input_tokens: 20, output_tokens: 0 },
            },
            { text: 'manager saw both', usage: { input_tokens: 20, output_tokens: 0 } },
          ],
        },
        {
          match: { contains: 'Coordinate' },
          steps: [
            {
              tool_calls: [{ name: 'subagent.run', args: { instruction: 'Manage the workers' } }],
              usage: { input_tokens: 10, output_tokens: 0 },
            },
            { text: 'all done', usage: { input_tokens: 10, output_tokens: 0 } },
          ],
        },
      ],
    };
    const { code, report, server, stderr } = await run(
      playbook,
      ['--max-tokens', '100000'],
      'Coordinate the work.',
    );
    expect(code, stderr).toBe(0);
    expect(report?.nodes.map((n) => [n.path, n.status]).sort()).toEqual([
      ['0', 'completed'],
      ['0.1', 'completed'],
      ['0.1.1', 'exhausted_tokens'],
      ['0.1.2', 'completed'],
    ]);
    // The runaway made five calls of 100 tokens and was refused the sixth.
    expect(requestsOf(server, 'Runaway worker')).toHaveLength(5);
    // The manager got both results: the runaway's exhausted, with its usage, the sibling's done.
    const managerLast = requestsOf(server, 'Manage the workers').at(-1);
    const results = toolResults(managerLast?.body);
    expect(results.map((r) => r.status)).toEqual(['exhausted_tokens', 'completed']);
    expect(results[0]?.subtree_usage).toEqual({ input_tokens: 500, output_tokens: 0 });
    expect(results[1]?.result).toBe('quick done');
    // Rollups: every node's subtree is itself plus its descendants.
    const byPath = new Map(report?.nodes.map((n) => [n.path, n]));
    expect(total(byPath.get('0.1')?.subtree_usage)).toBe(40 + 500 + 10);
    expect(total(byPath.get('0')?.subtree_usage)).toBe(20 + 40 + 500 + 10);
    expect(total(report?.usage)).toBe(570);
  });

  it('drains the whole tree when the tree ceiling is spent, exit 7', async () => {
    const playbook = {
      scripts: [
        { match: { contains: 'Worker A' }, steps: endless('a', 100) },
        { match: { contains: 'Worker B' }, steps: endless('b', 100) },
        {
          match: { contains: 'Coordinate' },
          steps: [
            {
              tool_calls: [
                { name: 'subagent.run', args: { instruction: 'Worker A' } },
                { name: 'subagent.run', args: { instruction: 'Worker B' } },
              ],
              usage: { input_tokens: 10, output_tokens: 0 },
            },
            { text: 'should never be reached', usage: { input_tokens: 10, output_tokens: 0 } },
          ],
        },
      ],
    };
    const { code, report, stderr } = await run(
      playbook,
      ['--max-tokens', '2000'],
      'Coordinate the workers.',
    );
    expect(code, stderr).toBe(7);
    expect(report?.status).toBe('exhausted_tokens');
    for (const node of report?.nodes.filter((n) => n.path !== '0') ?? []) {
      expect(['exhausted_tokens', 'cancelled']).toContain(node.status);
    }
    // The bound: the ceiling plus what the calls in flight when it was reached used (at most one
    // call per worker, 100 tokens each).
    expect(total(report?.usage)).toBeGreaterThanOrEqual(2000);
    expect(total(report?.usage)).toBeLessThanOrEqual(2000 + 2 * 100);
    expect(stderr).toContain('"event":"budget.ceiling"');
  });

  it('keeps a spent request window spent for the next run on the same store', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'arbor-budget-'));
    const config = join(dir, 'arbor.toml');
    await writeFile(config, '[[budget.window]]\nper = "day"\nrequests = 3\ntactic = "refuse"\n');
    const db = tempDb();
    const first = await run(
      { scripts: [{ steps: endless('w', 10) }] },
      ['--config', config],
      'Use the window.',
      db,
    );
    expect(first.code, first.stderr).toBe(7);
    expect(first.report?.status).toBe('exhausted_budget');
    expect(first.report?.reason).toContain('the 3 requests per day budget is spent until');
    expect(first.server.requests).toHaveLength(3);
    // A new run (a restart) finds the window still spent and never calls the model.
    const second = await run(
      { scripts: [{ steps: [{ text: 'hello' }] }] },
      ['--config', config],
      'Try again.',
      db,
    );
    expect(second.code, second.stderr).toBe(7);
    expect(second.server.requests).toHaveLength(0);
  });

  it('degrades to the cheaper model once a degrade window is spent', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'arbor-budget-'));
    const config = join(dir, 'arbor.toml');
    await writeFile(
      config,
      '[[budget.window]]\nper = "day"\nrequests = 2\ntactic = "degrade"\ndegrade_model = "small-model"\n',
    );
    const { code, server, stderr } = await run(
      { scripts: [{ steps: [...endless('d', 10, 3), { text: 'done' }] }] },
      ['--config', config],
      'Work until done.',
    );
    expect(code, stderr).toBe(0);
    expect(server.requests.map((r) => (r.body as { model: string }).model)).toEqual([
      'm',
      'm',
      'small-model',
      'small-model',
    ]);
  });
});
