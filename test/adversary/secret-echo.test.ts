import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  GetTaskRequest,
  SendMessageRequest,
  TaskState,
  type StreamResponse,
  type Task,
} from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import { Arbor, type ArborEvent } from '../../src/index.js';
import type { PlaybookInput } from '../../src/testing/index.js';
import { fakeLlm } from '../helpers/fake-llm.js';
import { FIXTURE_SERVER } from '../helpers/mcp-servers.js';
import { otlpReceiver } from '../helpers/otlp-receiver.js';
import { runArbor } from '../helpers/run-arbor.js';
import { sdkClient, serveInProcess, userMessage } from '../helpers/serve.js';

/**
 * A model that echoes the run's own secrets, as an injected or curious model would: the API key,
 * an MCP server's token and `arbor serve`'s operator token, in its streamed answer (cut into
 * pieces so no delta holds a whole secret), in tool-call arguments, in a child's instruction and
 * in its final answer. None of them may show anywhere arbor stores, logs, streams, exports or
 * prints. The secrets are not shaped like any known credential, so only the run's own values
 * catch them; a GitHub-shaped token the run never held is caught by its shape.
 */
const API_KEY = 'arbk-7Qm2Xv9LpR4tN8wZc3Hy';
const MCP_TOKEN = 'mcptok-Vb6Jd1Ke5Wq0YsUf';
const OPERATOR_TOKEN = 'optok-Hq3Lw8Zn1Rc6Tv0Bx';
const SHAPED = 'ghp_Q1w2E3r4T5y6U7i8O9p0A1s2D3f4G5h6J7k8';

/** Each secret, and pieces of it long enough to matter: a leak split across deltas shows these. */
const FORBIDDEN = [API_KEY, MCP_TOKEN, OPERATOR_TOKEN, SHAPED].flatMap((secret) => [
  secret,
  secret.slice(0, 12),
  secret.slice(-12),
]);

function isTask(result: unknown): result is Task {
  return typeof result === 'object' && result !== null && 'status' in result;
}

function expectNoSecret(where: string, text: string): void {
  for (const piece of FORBIDDEN) expect(text, `${where} shows ${piece}`).not.toContain(piece);
}

const ANSWER = `The key is ${API_KEY}, the MCP token ${MCP_TOKEN}, and ${SHAPED}.`;
const SCRUBBED_ANSWER = 'The key is [redacted], the MCP token [redacted], and [redacted].';

/** Root: a tool call and a child carrying the secrets, then the answer streamed 5 characters a delta. */
const ECHO: PlaybookInput = {
  scripts: [
    {
      match: { contains: 'Child:' },
      steps: [{ text: `child saw ${API_KEY} and ${MCP_TOKEN}`, chunk_chars: 3 }],
    },
    {
      steps: [
        {
          tool_calls: [
            { name: 'fx.echo_meta', args: { note: `token ${MCP_TOKEN}`, [API_KEY]: SHAPED } },
            { name: 'subagent.run', args: { instruction: `Child: repeat ${API_KEY}` } },
          ],
        },
        { text: ANSWER, chunk_chars: 5 },
      ],
    },
  ],
};

/** A working directory with a config: the fixture MCP server holding a token, content in spans. */
function workdir(): { dir: string; config: string; db: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'arbor-secret-echo-'));
  const config = path.join(dir, 'arbor.toml');
  writeFileSync(
    config,
    [
      '[[mcp.server]]',
      'name = "fx"',
      `command = ${JSON.stringify(process.execPath)}`,
      `args = [${JSON.stringify(FIXTURE_SERVER)}]`,
      'env = { API_TOKEN = "{{secret:FX_TOKEN}}" }',
      '[observability]',
      'capture_content = true',
      '',
    ].join('\n'),
  );
  return { dir, config, db: path.join(dir, 'arbor.db') };
}

/** Every byte of a store: the database, its journal and anything else beside it. */
function storeBytes(dir: string): string {
  return readdirSync(dir)
    .filter((name) => name.startsWith('arbor.db'))
    .map((name) => readFileSync(path.join(dir, name)).toString('latin1'))
    .join('\n');
}

describe('a model that echoes the run’s secrets', () => {
  it('gets none of them shown by `arbor run`, its events, store, export, transcripts or spans', async () => {
    const llm = await fakeLlm(ECHO);
    const collector = await otlpReceiver();
    const { dir, config, db } = workdir();
    const env = {
      ARBOR_API_KEY: API_KEY,
      FX_TOKEN: MCP_TOKEN,
      ARBOR_DB: db,
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    };
    const flags = [
      '--intel',
      llm.url,
      '--model',
      'm',
      '--config',
      config,
      '--sandbox',
      'off',
      '--exec',
      'none',
    ];
    const plain = await runArbor(['run', ...flags, '--events', 'ndjson', 'Echo.'], {
      env,
      cwd: dir,
    });
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).toBe(`${SCRUBBED_ANSWER}\n`);
    expectNoSecret('stdout', plain.stdout);
    expectNoSecret('stderr', plain.stderr);
    // The deltas on stderr join to the scrubbed answer: streamed, not withheld.
    const lines = plain.stderr
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map(
        (line) =>
          JSON.parse(line) as { event: string; path?: string; text?: string; name?: string },
      );
    // The attack went where it was meant to: a tool call, a child, its own stream.
    const calls = lines.filter((line) => line.event === 'tool.call').map((line) => line.name);
    expect(calls).toEqual(expect.arrayContaining(['fx.echo_meta', 'subagent.run']));
    expect(lines.some((line) => line.event === 'text.delta' && line.path === '0.1')).toBe(true);
    const deltas = lines.filter((line) => line.event === 'text.delta' && line.path === '0');
    expect(deltas.length).toBeGreaterThan(5);
    expect(deltas.map((line) => line.text).join('')).toBe(SCRUBBED_ANSWER);

    const json = await runArbor(['run', ...flags, '--json', 'Echo again.'], { env, cwd: dir });
    expect(json.code, json.stderr).toBe(0);
    expectNoSecret('stdout of --json', json.stdout);
    expectNoSecret('stderr of --json', json.stderr);
    const report = JSON.parse(json.stdout) as { run_id: string; result: string };
    expect(report.result).toBe(SCRUBBED_ANSWER);

    for (const command of [
      ['export', report.run_id],
      ['show', report.run_id],
      ['events', report.run_id],
      ['transcript', report.run_id, '0'],
      ['transcript', report.run_id, '0.1'],
    ]) {
      const shown = await runArbor(['runs', ...command, '--db', db], { cwd: dir });
      expect(shown.code, shown.stderr).toBe(0);
      expectNoSecret(`arbor runs ${command[0] ?? ''}`, shown.stdout + shown.stderr);
    }
    const exported = await runArbor(['runs', 'export', report.run_id, '--db', db], { cwd: dir });
    expect(exported.stdout).toContain('[redacted]');

    expectNoSecret('the store', storeBytes(dir));
    const spans = JSON.stringify(collector.spans);
    expect(spans).toContain('gen_ai.output.messages');
    expect(spans).toContain('gen_ai.input.messages');
    expect(spans).toContain('[redacted]');
    expectNoSecret('the spans', spans);
  });

  it('gets none of them into the library’s event stream, split across text.delta events', async () => {
    const llm = await fakeLlm({
      scripts: [{ steps: [{ text: ANSWER, chunk_chars: 2 }] }],
    });
    const arbor = await Arbor.open({
      intelligence: { endpoints: [llm.url], model: 'scripted' },
      store: ':memory:',
      security: { sandbox: 'off' },
      grant: { exec: [] },
      env: { ...process.env, ARBOR_API_KEY: API_KEY, ARBOR_FLEET_KEY: MCP_TOKEN },
    });
    try {
      const run = arbor.run('Echo.');
      const events: ArborEvent[] = [];
      for await (const event of run.events) events.push(event);
      const result = await run.result;
      expect(result.text).toBe(SCRUBBED_ANSWER);
      const deltas = events.flatMap((event) => (event.type === 'text.delta' ? [event.text] : []));
      expect(deltas.join('')).toBe(SCRUBBED_ANSWER);
      for (const delta of deltas) expectNoSecret('a text.delta', delta);
      expectNoSecret('the events', JSON.stringify(events));
    } finally {
      await arbor.close();
    }
  });

  it('gets none of them into an A2A task of `arbor serve`: its question, status, artifact and stored task', async () => {
    const { server } = await serveInProcess(
      {
        scripts: [
          {
            steps: [
              {
                tool_calls: [
                  { name: 'ask_human', args: { question: `Is ${OPERATOR_TOKEN} yours?` } },
                ],
              },
              { text: `operator ${OPERATOR_TOKEN} key ${API_KEY}`, chunk_chars: 4 },
            ],
          },
        ],
      },
      {
        env: { ARBOR_API_KEY: API_KEY, OPS_TOKEN: OPERATOR_TOKEN },
        serve: { principal: [{ name: 'ops', role: 'operator', token: 'env:OPS_TOKEN' }] },
      },
    );
    const client = await sdkClient(server.url, OPERATOR_TOKEN);
    const asked = await client.sendMessage(
      SendMessageRequest.fromJSON({ message: userMessage('Tell me the tokens.') }),
    );
    if (!isTask(asked)) throw new Error('expected a task');
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const question = asked.status?.message?.parts[0]?.content;
    expect(question?.$case === 'text' && question.value).toBe('Is [redacted] yours?');
    expectNoSecret('the question', JSON.stringify(asked));
    const updates: StreamResponse[] = [];
    const reply = userMessage('Yes.', { taskId: asked.id, contextId: asked.contextId });
    for await (const update of client.sendMessageStream(
      SendMessageRequest.fromJSON({ message: reply }),
    ))
      updates.push(update);
    const stored = await client.getTask(GetTaskRequest.fromJSON({ id: asked.id }));
    expect(stored.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const part = stored.artifacts[0]?.parts[0]?.content;
    expect(part?.$case === 'text' && part.value).toBe('operator [redacted] key [redacted]');
    expectNoSecret('the task', JSON.stringify(stored));
    expectNoSecret('the stream', JSON.stringify(updates));
  });
});
