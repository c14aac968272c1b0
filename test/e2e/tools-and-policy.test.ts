import { existsSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ArborProcess, tempDb } from '../helpers/arbor-process.js';
import { fakeLlm } from '../helpers/fake-llm.js';
import { EVERYTHING_BIN } from '../helpers/mcp-servers.js';
import { runArbor } from '../helpers/run-arbor.js';
import { EXEC_AND_WRITE_POLICY } from '../helpers/policy-fixture.js';

const EVERYTHING = `everything=${process.execPath} ${EVERYTHING_BIN} stdio`;

interface Body {
  messages: { role: string; content: string }[];
  tools?: { function: { name: string } }[];
}

function requestsOf(
  server: { requests: readonly { body: unknown }[] },
  instruction: string,
): Body[] {
  return server.requests
    .map((r) => r.body as Body)
    .filter((b) => b.messages.some((m) => m.role === 'user' && m.content === instruction));
}

function toolNames(body: Body | undefined): string[] {
  return (body?.tools ?? []).map((t) => t.function.name);
}

function toolResults(body: Body | undefined): string[] {
  return (body?.messages ?? [])
    .filter((m) => m.role === 'tool')
    .map((m) => m.content.replace(/^Error: /, ''));
}

async function config(text: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'arbor-policy-'));
  const path = join(dir, 'arbor.toml');
  await writeFile(path, text);
  return path;
}

describe('MCP servers through delegation', () => {
  it("shows a real server's tools to the child granted it, and not to another", async () => {
    const server = await fakeLlm({
      scripts: [
        {
          match: { contains: 'Use the server' },
          steps: [
            { tool_calls: [{ name: 'everything.echo', args: { message: 'hi from A' } }] },
            { text: 'A echoed' },
          ],
        },
        { match: { contains: 'No servers for you' }, steps: [{ text: 'B has no server' }] },
        {
          steps: [
            {
              tool_calls: [
                {
                  name: 'subagent.run',
                  args: { instruction: 'Use the server', servers: ['everything'] },
                },
                { name: 'subagent.run', args: { instruction: 'No servers for you', servers: [] } },
              ],
            },
            { text: 'done' },
          ],
        },
      ],
    });
    // An untagged server counts as untrusted input; with no `exec` the grant holds no other leg.
    const { code, stderr } = await runArbor(
      [
        'run',
        '--intel',
        server.url,
        '--model',
        'm',
        '--mcp',
        EVERYTHING,
        '--exec',
        'none',
        'Coordinate.',
      ],
      { env: { ARBOR_DB: tempDb() } },
    );
    expect(code, stderr).toBe(0);
    const granted = requestsOf(server, 'Use the server');
    const other = requestsOf(server, 'No servers for you');
    expect(toolNames(granted[0])).toContain('everything_echo');
    expect(toolNames(other[0]).some((name) => name.startsWith('everything_'))).toBe(false);
    expect(toolResults(granted[1]).join('')).toContain('hi from A');
  });

  it('refuses a server the parent does not hold, naming the ones it does', async () => {
    const server = await fakeLlm({
      scripts: [
        {
          steps: [
            {
              tool_calls: [
                { name: 'subagent.run', args: { instruction: 'x', servers: ['github'] } },
              ],
            },
            { text: 'ok' },
          ],
        },
      ],
    });
    const { code } = await runArbor(
      [
        'run',
        '--intel',
        server.url,
        '--model',
        'm',
        '--mcp',
        EVERYTHING,
        '--exec',
        'none',
        'Coordinate.',
      ],
      { env: { ARBOR_DB: tempDb() } },
    );
    expect(code).toBe(0);
    expect(toolResults(requestsOf(server, 'Coordinate.').at(-1))[0]).toBe(
      'subagent.run refused: unknown server `github` (yours: `everything`)',
    );
  });

  it('ends with exit 6 when a required server cannot be started', async () => {
    const server = await fakeLlm({ scripts: [{ steps: [{ text: 'never' }] }] });
    const { code, stderr } = await runArbor(
      [
        'run',
        '--intel',
        server.url,
        '--model',
        'm',
        '--mcp',
        'broken=/no/such/mcp-server',
        '--exec',
        'none',
        'x',
      ],
      { env: { ARBOR_DB: tempDb() } },
    );
    expect(code).toBe(6);
    expect(stderr).toContain('broken');
    expect(server.requests).toHaveLength(0);
  });

  it('refuses at start-up a root that would hold all three trifecta legs', async () => {
    const { code, stderr } = await runArbor(
      [
        'run',
        '--intel',
        'http://127.0.0.1:9/v1',
        '--model',
        'm',
        '--mcp',
        EVERYTHING,
        '--mcp-tags',
        'everything=untrusted_input',
        'x',
      ],
      {
        env: { ARBOR_DB: tempDb() },
      },
    );
    expect(code).toBe(2);
    expect(stderr).toContain('untrusted_input (everything)');
    expect(stderr).toContain('allow_trifecta');
    // Tagged, it is not told to tag; exec is a leg, so narrowing it comes before lifting the check.
    expect(stderr).not.toContain('--mcp-tags');
    expect(stderr.indexOf('narrow `exec`')).toBeGreaterThan(-1);
    expect(stderr.indexOf('narrow `exec`')).toBeLessThan(stderr.indexOf('allow_trifecta'));
  });

  it('tells a newcomer whose untagged --mcp server is refused to tag it or narrow exec', async () => {
    const { code, stderr } = await runArbor(
      ['run', '--intel', 'http://127.0.0.1:9/v1', '--model', 'm', '--mcp', EVERYTHING, 'x'],
      { env: { ARBOR_DB: tempDb() } },
    );
    expect(code).toBe(2);
    expect(stderr).toContain('untrusted_input (everything: untagged)');
    expect(stderr).toContain('`--mcp-tags everything=sensitive`');
    expect(stderr).toContain('narrow `exec`');
  });
});

const POLICY = `${EXEC_AND_WRITE_POLICY}
[[security.policy]]
action = "deny"
reason = "the echo tool is off limits"
[security.policy.match]
tool = "everything.*"
`;

describe('gated tools and policy', () => {
  it('allows, denies and asks, recording each decision with its rule index', async () => {
    const work = await mkdtemp(join(tmpdir(), 'arbor-work-'));
    const server = await fakeLlm({
      scripts: [
        {
          steps: [
            {
              tool_calls: [
                { name: 'exec', args: { command: 'echo allowed' } },
                { name: 'exec', args: { command: 'cat /etc/passwd' } },
              ],
            },
            // Steps are picked by how many tool results the conversation holds: two after the first.
            { text: 'unused' },
            { tool_calls: [{ name: 'fs.write', args: { path: 'out.txt', content: 'written' } }] },
            { text: 'done' },
          ],
        },
      ],
    });
    const arbor = new ArborProcess(
      [
        'run',
        '--intel',
        server.url,
        '--model',
        'm',
        '--config',
        await config(POLICY),
        '--ask-fallback',
        'wait',
        '--fs-write',
        work,
        'Work.',
      ],
      {
        env: { ARBOR_DB: join(work, 'arbor.db') },
        cwd: work,
      },
    );
    const gate = await arbor.waitForEvent('gate.open');
    const runId = String(gate.run_id);
    expect(gate.question).toBe('May the agent write out.txt?');
    const answered = await runArbor(['gate', 'answer', runId, String(gate.gate), 'yes'], {
      env: { ARBOR_DB: join(work, 'arbor.db') },
    });
    expect(answered.code).toBe(0);
    expect((await arbor.exited).code).toBe(0);
    const decisions = arbor.events
      .filter((e) => e.event === 'policy.decision')
      .map((e) => [e.tool, e.action, e.rule]);
    expect(decisions).toEqual([
      ['exec', 'allow', 0],
      ['exec', 'deny', 1],
      ['fs.write', 'ask', 2],
    ]);
    const [allowed, denied] = toolResults(requestsOf(server, 'Work.')[1]);
    expect(allowed).toContain('allowed');
    expect(denied).toBe('`exec` refused by policy rule [1] (deny): no other shell commands.');
    expect(existsSync(join(work, 'out.txt'))).toBe(true);
  });

  it('fails an ask when nobody can answer (fallback fail), and nothing is written', async () => {
    const work = await mkdtemp(join(tmpdir(), 'arbor-work-'));
    const server = await fakeLlm({
      scripts: [
        {
          steps: [
            { tool_calls: [{ name: 'fs.write', args: { path: 'out.txt', content: 'x' } }] },
            { text: 'done' },
          ],
        },
      ],
    });
    const { code } = await runArbor(
      [
        'run',
        '--intel',
        server.url,
        '--model',
        'm',
        '--config',
        await config(POLICY),
        '--fs-write',
        work,
        'Work.',
      ],
      {
        env: { ARBOR_DB: join(work, 'arbor.db') },
        cwd: work,
      },
    );
    expect(code).toBe(0);
    expect(toolResults(requestsOf(server, 'Work.')[1])[0]).toContain(
      '`fs.write` was not approved (policy rule [2] (ask)',
    );
    expect(existsSync(join(work, 'out.txt'))).toBe(false);
  });

  it('refuses a gated MCP tool to a child that ignores its gated list: it has no route, and asking is refused', async () => {
    const fixture = fileURLToPath(
      new URL('../fixtures/children/ignores-gating.mjs', import.meta.url),
    );
    const { code, stdout, stderr } = await runArbor(
      [
        'run',
        '--intel',
        'http://127.0.0.1:9/v1',
        '--model',
        'm',
        '--config',
        await config(POLICY),
        '--mcp',
        EVERYTHING,
        '--mcp-tags',
        'everything=sensitive',
        '--json',
        'x',
      ],
      { env: { ARBOR_DB: tempDb(), ARBOR_CHILD_COMMAND: `${process.execPath} ${fixture}` } },
    );
    expect(code, stderr).toBe(0);
    const report = JSON.parse(stdout) as { result: Record<string, unknown> };
    expect(report.result).toMatchObject({
      server_in_payload: false,
      gated: true,
      routed: true,
      refused: true,
    });
    expect(String(report.result.answer)).toBe(
      '`everything.echo` refused by policy rule [3] (deny): the echo tool is off limits.',
    );
  });
});
