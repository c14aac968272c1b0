import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SqliteStore } from '../../src/store/index.js';
import { tempDb } from '../helpers/arbor-process.js';
import { fakeLlm, steps } from '../helpers/fake-llm.js';
import { runArbor } from '../helpers/run-arbor.js';

async function run(
  playbook: Parameters<typeof fakeLlm>[0],
  args: string[] = [],
  env: NodeJS.ProcessEnv = {},
) {
  const server = await fakeLlm(playbook);
  const db = tempDb();
  const result = await runArbor(
    ['run', '--intel', server.url, '--model', 'scripted', ...args, 'Do the task.'],
    {
      env: { ARBOR_DB: db, ...env },
    },
  );
  return { ...result, server, db };
}

describe('arbor run: outcomes and exit codes', () => {
  it('prints a plain answer on stdout, the run id on stderr, and exits 0', async () => {
    const { code, stdout, stderr, server, db } = await run(
      steps({ text: 'Hello from the model.' }),
    );
    expect(stdout).toBe('Hello from the model.\n');
    expect(code).toBe(0);
    const runId = /arbor: run (run_[0-9a-z]+)/.exec(stderr)?.[1];
    expect(runId).toBeDefined();
    expect(server.requests).toHaveLength(1);
    // Everything was recorded: the run, the root node with its usage, and its events.
    const store = new SqliteStore(db);
    expect(store.getRun(runId!)).toMatchObject({ status: 'completed' });
    const [root] = store.listNodes(runId!);
    expect(root).toMatchObject({
      path: '0',
      status: 'completed',
      outcome: { result: 'Hello from the model.' },
    });
    expect(root!.usage.input_tokens).toBeGreaterThan(0);
    expect(store.listEvents(runId!).map((e) => e.kind)).toEqual(
      expect.arrayContaining(['child.ready', 'loop.step', 'model.call', 'node.end']),
    );
    store.close();
  });

  it('records every event a real child reports: each checks against its schema, none is dropped as `event.invalid`', async () => {
    const { code, stderr, db } = await run(
      steps(
        { tool_calls: [{ name: 'sleep', args: { ms: 1 } }] },
        { tool_calls: [{ name: 'nope.missing', args: {} }] },
        { text: 'Done after a nap.' },
      ),
    );
    expect(code).toBe(0);
    const runId = /arbor: run (run_[0-9a-z]+)/.exec(stderr)?.[1];
    const store = new SqliteStore(db);
    const events = store.listEvents(runId!);
    store.close();
    const kinds = events.map((e) => e.kind);
    expect(kinds).toEqual(
      expect.arrayContaining(['loop.step', 'model.call', 'tool.call', 'tool.result', 'loop.stop']),
    );
    expect(kinds).not.toContain('event.invalid');
    // The child's fields arrive under the names the schema gives them, stored in snake_case.
    const modelCall = events.find((e) => e.kind === 'model.call')?.data ?? {};
    expect(typeof modelCall.input_tokens).toBe('number');
    expect(typeof modelCall.finish_reason).toBe('string');
    expect(modelCall.tool_calls).toBe(1);
    expect(events.filter((e) => e.kind === 'tool.result').map((e) => e.data)).toEqual([
      expect.objectContaining({ name: 'sleep', is_error: false }),
      expect.objectContaining({ name: 'nope_missing', is_error: true, refused: true }),
    ]);
  });

  it('writes NDJSON events on stderr when it is not a terminal', async () => {
    const { stderr } = await run(steps({ text: 'ok' }));
    const events = stderr
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { event: string; run_id: string; path?: string });
    expect(events.map((e) => e.event)).toEqual(
      expect.arrayContaining(['node.status', 'loop.step', 'model.call', 'usage', 'node.end']),
    );
    expect(new Set(events.map((e) => e.run_id)).size).toBe(1);
  });

  it('prints a JSON report with --json', async () => {
    const { code, stdout } = await run(
      steps({ text: 'forty-two', usage: { input_tokens: 30, output_tokens: 4 } }),
      ['--json'],
    );
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as Record<string, unknown>;
    expect(report).toMatchObject({
      status: 'completed',
      result: 'forty-two',
      usage: { input_tokens: 30, output_tokens: 4 },
    });
    expect(report.run_id).toMatch(/^run_/);
  });

  it.each([
    [
      'refused (finish) exits 5',
      steps({
        tool_calls: [
          { name: 'finish', args: { result: 'no', status: 'refused', reason: 'out of scope' } },
        ],
      }),
      [],
      5,
      'refused',
    ],
    [
      'failed (finish) exits 1',
      steps({
        tool_calls: [
          { name: 'finish', args: { result: null, status: 'failed', reason: 'impossible' } },
        ],
      }),
      [],
      1,
      'failed',
    ],
    [
      'exhausted_steps exits 7',
      steps(
        { tool_calls: [{ name: 'sleep', args: { ms: 1 } }] },
        { tool_calls: [{ name: 'sleep', args: { ms: 2 } }] },
        { tool_calls: [{ name: 'sleep', args: { ms: 3 } }] },
      ),
      ['--max-steps', '2'],
      7,
      'exhausted_steps',
    ],
    [
      'exhausted_tokens exits 7',
      steps(
        {
          tool_calls: [{ name: 'sleep', args: { ms: 1 } }],
          usage: { input_tokens: 30, output_tokens: 10 },
        },
        {
          tool_calls: [{ name: 'sleep', args: { ms: 2 } }],
          usage: { input_tokens: 30, output_tokens: 10 },
        },
        { text: 'never', usage: { input_tokens: 1, output_tokens: 1 } },
      ),
      ['--max-tokens', '60'],
      7,
      'exhausted_tokens',
    ],
    [
      'loop_detected exits 3',
      steps({ tool_calls: [{ name: 'sleep', args: { ms: 1 } }] }),
      [],
      3,
      'loop_detected',
    ],
    [
      'deadline during a slow model call exits 7',
      steps({ text: 'too late', delay_ms: 20_000 }),
      ['--deadline', '1s'],
      7,
      'deadline',
    ],
    [
      'deadline during a hung model call exits 7',
      steps({ fault: { kind: 'hang' } }),
      ['--deadline', '1s'],
      7,
      'deadline',
    ],
  ] as const)('%s', async (_, playbook, args, exitCode, status) => {
    const { code, stderr } = await run(playbook, [...args, '--json']);
    expect(code).toBe(exitCode);
    expect(stderr).toContain(`run ended ${status}`);
  });

  it('exits 4 when every endpoint is unreachable, naming the endpoints but no URL', async () => {
    const db = tempDb();
    const { code, stdout, stderr } = await runArbor(
      [
        'run',
        '--intel',
        'http://127.0.0.1:9/v1,http://127.0.0.1:10/v1',
        '--model',
        'm',
        '--json',
        'x',
      ],
      { env: { ARBOR_DB: db } },
    );
    expect(code).toBe(4);
    const report = JSON.parse(stdout) as {
      status: string;
      error: { code: string; message: string };
    };
    expect(report.status).toBe('failed');
    expect(report.error.code).toBe('intel_unavailable');
    expect(report.error.message).not.toContain('127.0.0.1');
    expect(stderr).toContain('run ended failed');
  });

  it.each([
    [['--max-steps', '0'], 'Expected `--max-steps` to be a positive integer, got `0`.'],
    [['--deadline', 'soon'], 'Expected `--deadline` to be a duration'],
    [['--intel', 'ftp://x', '--model', 'm'], 'expected an http:// or https:// URL'],
    [['--bogus'], "Unknown option '--bogus'"],
  ])('rejects %j with exit 2 before any model call', async (args, message) => {
    const server = await fakeLlm(steps({ text: 'unreachable' }));
    const { code, stderr, stdout } = await runArbor(
      ['run', '--intel', server.url, '--model', 'm', ...args, 'x'],
      { env: { ARBOR_DB: tempDb() } },
    );
    expect(code).toBe(2);
    expect(stderr).toContain(message);
    expect(stdout).toBe('');
    expect(server.requests).toHaveLength(0);
  });

  it('sends the credential to the model and never writes it to the store or the output', async () => {
    const canary = 'sk-ARBOR-CANARY-7731';
    const { code, server, db, stdout, stderr } = await run(steps({ text: 'ok' }), [], {
      ARBOR_API_KEY: canary,
    });
    expect(code).toBe(0);
    // The fake server records the header with its value redacted: it was sent.
    expect(server.requests[0]?.headers.authorization).toBeDefined();
    const files = readdirSync(dirname(db)).map((file) =>
      readFileSync(join(dirname(db), file)).toString('latin1'),
    );
    for (const text of [...files, stdout, stderr]) expect(text).not.toContain(canary);
  });
});
