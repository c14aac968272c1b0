import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDb } from '../helpers/arbor-process.js';
import { fakeLlm, steps } from '../helpers/fake-llm.js';
import { runArbor } from '../helpers/run-arbor.js';

const PLAN = fileURLToPath(new URL('../fixtures/plans/valid/tree.toml', import.meta.url));
const WARN = fileURLToPath(new URL('../fixtures/cli/warn-once-running.mjs', import.meta.url));

/** One bad input: the command's arguments (`URL` stands for the fake model's), a config file, env. */
interface BadInput {
  name: string;
  args: string[];
  config?: string;
  env?: NodeJS.ProcessEnv;
  /** Fragments stderr must hold: the flag, key or file, and what is wrong. `CONFIG` is its path. */
  says: string[];
  /** What stderr must never show (a password given in a URL). */
  never?: string[];
}

const MODEL = ['--intel', 'URL', '--model', 'm'];
const PLAYBOOK = fileURLToPath(new URL('../../examples/playbooks/demo.json', import.meta.url));

const CASES: BadInput[] = [
  {
    name: 'a deadline past the maximum',
    args: ['run', ...MODEL, '--deadline', '99999999999h', 'x'],
    says: ['Expected `--deadline` to be at most 24d, got `99999999999h`.'],
  },
  {
    name: 'a deadline past the maximum, in the config file',
    args: ['run', ...MODEL, '--config', 'CONFIG', 'x'],
    config: '[limits]\ndeadline = "99999999999h"\n',
    says: ['CONFIG: `limits.deadline`: expected at most 24d'],
  },
  {
    name: 'a deadline past the maximum, in the environment',
    args: ['run', ...MODEL, 'x'],
    env: { ARBOR_DEADLINE: '30d' },
    says: ['Expected `ARBOR_DEADLINE` to be at most 24d, got `30d`.'],
  },
  {
    name: 'a duration in an unknown unit',
    args: ['run', ...MODEL, '--deadline', '2w', 'x'],
    says: ['`--deadline`', '`500ms`, `30s`, `5m`, `1h` or `7d`, got `2w`'],
  },
  {
    name: 'a model timeout that is not a duration, in the config file',
    args: ['run', ...MODEL, '--config', 'CONFIG', 'x'],
    config: '[intelligence]\ntimeout = "soon"\n',
    says: ['CONFIG: `intelligence.timeout`: expected a duration such as'],
  },
  {
    name: 'an endpoint port out of range',
    args: ['run', '--intel', 'http://127.0.0.1:99999/v1', '--model', 'm', 'x'],
    says: ['--intel', 'the port 99999 is out of range (0 to 65535)'],
  },
  {
    name: 'an endpoint port out of range, in the config file',
    args: ['run', '--model', 'm', '--config', 'CONFIG', 'x'],
    config: '[intelligence]\nendpoints = ["http://127.0.0.1:99999/v1"]\n',
    says: ['CONFIG: `intelligence.endpoints[0]`', 'the port 99999 is out of range'],
  },
  {
    name: 'two --mcp servers of one name',
    args: ['run', ...MODEL, '--mcp', 'fs=node a.js', '--mcp', 'fs=node b.js', 'x'],
    says: ['`--mcp fs=…` is given twice'],
  },
  {
    name: 'two [[mcp.server]] tables of one name',
    args: ['run', ...MODEL, '--config', 'CONFIG', 'x'],
    config:
      '[[mcp.server]]\nname = "fs"\ncommand = "a"\n[[mcp.server]]\nname = "fs"\ncommand = "b"\n',
    says: ['CONFIG: `mcp.server` `fs` is named twice'],
  },
  {
    name: 'a word for --max-steps and no instruction',
    args: ['run', ...MODEL, '--max-steps', 'WORD'],
    says: [
      'Expected `--max-steps` to be a positive integer, got `WORD`.',
      'Expected an instruction',
    ],
  },
  ...(
    [
      ['--max-steps', 'a positive integer'],
      ['--max-tokens', 'a positive integer'],
      ['--max-depth', 'a non-negative integer'],
      ['--budget-usd', 'a positive amount of US dollars'],
    ] as const
  ).map(([flag, kind]) => ({
    name: `a word for ${flag}`,
    args: ['run', ...MODEL, flag, 'WORD', 'x'],
    says: [`Expected \`${flag}\` to be ${kind}, got \`WORD\`.`],
  })),
  // A value starting with a dash is the flag's value, checked as any other (not "ambiguous").
  ...(
    [
      [
        ['run', ...MODEL, '--max-steps', '-1', 'x'],
        'Expected `--max-steps` to be a positive integer, got `-1`.',
      ],
      [
        ['run', ...MODEL, '--max-tokens', '-5', 'x'],
        'Expected `--max-tokens` to be a positive integer, got `-5`.',
      ],
      [
        ['run', ...MODEL, '--max-depth', '-3', 'x'],
        'Expected `--max-depth` to be a non-negative integer, got `-3`.',
      ],
      [
        ['run', ...MODEL, '--budget-usd', '-0.5', 'x'],
        'Expected `--budget-usd` to be a positive amount of US dollars, got `-0.5`.',
      ],
      [
        ['run', ...MODEL, '--pool', '-2', 'x'],
        'Expected `--pool` to be a non-negative integer, got `-2`.',
      ],
      [
        ['run', ...MODEL, '--deadline', '-5s', 'x'],
        'Expected `--deadline` to be a duration such as `500ms`, `30s`, `5m`, `1h` or `7d`, got `-5s`.',
      ],
      [
        ['plan', 'run', PLAN, ...MODEL, '--concurrency', '-2'],
        'Expected `--concurrency` to be a whole number from 1 to 1000, got `-2`.',
      ],
      [
        ['plan', 'run', PLAN, ...MODEL, '--verify-timeout', '-5s'],
        'Expected `--verify-timeout` to be a duration such as',
      ],
      [['runs', 'list', '--limit', '-1'], '--limit: expected a positive whole number, got `-1`.'],
      [
        ['runs', 'prune', '--older-than', '-5d'],
        'Expected `--older-than` to be a duration such as',
      ],
      [
        ['mock-llm', '--playbook', PLAYBOOK, '--port', '-1'],
        'Expected `--port` to be an integer from 0 to 65535, got `-1`.',
      ],
    ] as const
  ).map(([args, says]) => ({
    name: `a negative value: ${args.filter((a) => a.startsWith('-')).join(' ')} (${args[0]})`,
    args: [...args],
    says: [says],
    never: ['ambiguous'],
  })),
  {
    name: 'a user name and password in --intel',
    args: ['run', '--intel', 'http://user:s3cretpw@127.0.0.1:9/v1', '--model', 'm', 'x'],
    says: [
      'Expected `--intel` to give endpoint URLs without a user name or password, got one for http://127.0.0.1:9/v1: put the key in ARBOR_API_KEY',
    ],
    never: ['s3cretpw', 'user:'],
  },
  {
    name: 'a user name and password in ARBOR_INTEL',
    args: ['run', '--model', 'm', 'x'],
    env: { ARBOR_INTEL: 'http://127.0.0.1:9/v1,https://key:s3cretpw@api.example.com/v1' },
    says: ['Expected `ARBOR_INTEL` to give endpoint URLs without a user name or password'],
    never: ['s3cretpw'],
  },
  {
    name: 'a user name and password in the config file',
    args: ['run', '--model', 'm', '--config', 'CONFIG', 'x'],
    config: '[intelligence]\nendpoints = ["https://key:s3cretpw@api.example.com/v1"]\n',
    says: ['Expected `CONFIG: intelligence.endpoints` to give endpoint URLs without'],
    never: ['s3cretpw'],
  },
  {
    name: 'a word for --max-steps, in the config file',
    args: ['run', ...MODEL, '--config', 'CONFIG', 'x'],
    config: '[limits]\nmax_steps = "WORD"\n',
    says: ['CONFIG: `limits.max_steps`: expected a number, got "WORD"'],
  },
  {
    name: 'a bad ARBOR_PROVIDER',
    args: ['run', ...MODEL, 'x'],
    env: { ARBOR_PROVIDER: 'thread' },
    says: ['Expected `ARBOR_PROVIDER` to be `process` or `queue`, got `thread`.'],
  },
  {
    name: 'no --model, and other bad flags',
    args: [
      'run',
      '--intel',
      'URL',
      '--max-steps',
      '0',
      '--deadline',
      'soon',
      '--events',
      'json',
      'x',
    ],
    says: [
      '4 problems:',
      'No model name',
      'Expected `--max-steps` to be a positive integer, got `0`.',
      'Expected `--deadline` to be a duration',
      'Expected `--events` to be `tree`, `ndjson` or `none`, got `json`.',
    ],
  },
  {
    name: 'plan run: a word for --concurrency and --verify-timeout, and --max-steps',
    args: [
      'plan',
      'run',
      PLAN,
      ...MODEL,
      '--concurrency',
      'WORD',
      '--verify-timeout',
      '99d',
      '--max-steps',
      'WORD',
    ],
    says: [
      '3 problems:',
      'Expected `--concurrency` to be a whole number from 1 to 1000, got `WORD`.',
      'Expected `--verify-timeout` to be at most 24d, got `99d`.',
      'Expected `--max-steps` to be a positive integer, got `WORD`.',
    ],
  },
  {
    name: 'plan run: no plan file and no model',
    args: ['plan', 'run', '--intel', 'URL', '--on-failure', 'never'],
    says: [
      'plan run: expected a plan file.',
      'Expected `--on-failure` to be stop or continue, got `never`.',
      'No model name',
    ],
  },
];

describe('bad input: exit 2, a message naming what is wrong, no model call, no store', () => {
  it.each(CASES)('$name', async ({ args, config, env, says, never = [] }) => {
    const server = await fakeLlm(steps({ text: 'unreachable' }));
    const dir = mkdtempSync(join(tmpdir(), 'arbor-bad-input-'));
    const configPath = join(dir, 'arbor.toml');
    if (config !== undefined) writeFileSync(configPath, config);
    const db = tempDb();
    const fill = (text: string): string =>
      text.replace(/^URL$/, server.url).replaceAll('CONFIG', configPath);
    const { code, stdout, stderr } = await runArbor(args.map(fill), {
      cwd: dir,
      env: { ARBOR_DB: db, ...env },
    });
    for (const fragment of says) expect(stderr).toContain(fill(fragment));
    for (const fragment of never) expect(stderr).not.toContain(fragment);
    expect(code).toBe(2);
    expect(stderr).not.toMatch(/\n\s+at /);
    expect(stderr).not.toContain('internal error');
    expect(stdout).toBe('');
    expect(server.requests).toHaveLength(0);
    expect(existsSync(db)).toBe(false);
    expect(existsSync(join(dir, '.arbor'))).toBe(false);
  });

  it('names a frame number out of range at its path instead of calling it null', async () => {
    const { code, stdout } = await runArbor(['protocol', 'check'], {
      input: '{"type":"usage","input_tokens":1e400,"output_tokens":4}\n',
    });
    expect(stdout).toContain('`input_tokens`: number out of range');
    expect(stdout).not.toContain('null');
    expect(code).toBe(1);
  });
});

describe('--events ndjson', () => {
  it('carries a process warning as an event line, never as free text', async () => {
    const server = await fakeLlm(steps({ text: 'done' }));
    const { code, stderr } = await runArbor(
      ['run', ...MODEL.map((arg) => (arg === 'URL' ? server.url : arg)), '--events', 'ndjson', 'x'],
      { env: { ARBOR_DB: tempDb(), NODE_OPTIONS: `--import=${WARN}` } },
    );
    expect(code).toBe(0);
    const lines = stderr.split('\n').filter((line) => line !== '');
    const free = lines.filter((line) => !line.startsWith('{') && !line.startsWith('arbor: '));
    expect(free).toEqual([]);
    const warnings = lines
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.event === 'process.warning');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ name: 'MaxListenersExceededWarning' });
    expect(String(warnings[0]?.run_id)).toMatch(/^run_/);
    expect(String(warnings[0]?.message)).toContain('Possible EventEmitter memory leak');
  });
});
