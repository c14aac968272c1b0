import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDuration } from '../../src/config/index.js';
import { exitCodeFor } from '../../src/runtime/index.js';
import { resolveRunSettings, type RunFlags } from '../../src/config/index.js';

const base: RunFlags = { intel: 'http://127.0.0.1:8080/v1', model: 'm' };

function configFile(text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'arbor-config-')), 'arbor.toml');
  writeFileSync(path, text);
  return path;
}

describe('parseDuration', () => {
  it.each([
    ['500ms', 500],
    ['30s', 30_000],
    ['5m', 300_000],
    ['1h', 3_600_000],
    ['1m30s', 90_000],
    ['1.5s', 1_500],
    ['7d', 604_800_000],
    ['1d12h', 129_600_000],
    ['24d', 2_073_600_000],
  ])('%s is %d ms', (text, ms) => {
    expect(parseDuration(text, '--deadline')).toBe(ms);
  });

  it.each(['', '10', 'soon', '5 m', '-1s', '0s', '3w'])('rejects %j naming the setting', (text) => {
    expect(() => parseDuration(text, '--deadline')).toThrow(
      `Expected \`--deadline\` to be a duration such as \`500ms\`, \`30s\`, \`5m\`, \`1h\` or \`7d\`, got \`${text}\`.`,
    );
  });

  it.each(['25d', '99999999999h', `${'9'.repeat(400)}h`])(
    'rejects %j as longer than the 24-day maximum, naming it',
    (text) => {
      expect(() => parseDuration(text, '--deadline')).toThrow(
        `Expected \`--deadline\` to be at most 24d, got \`${text}\`.`,
      );
    },
  );

  it('takes a larger maximum when the setting names one', () => {
    expect(parseDuration('90d', '--older-than', { maxMs: 365 * 86_400_000 })).toBe(90 * 86_400_000);
  });
});

describe('resolveRunSettings', () => {
  it('takes the pool from [agent] pool, ARBOR_POOL and --pool, in that order; none by default', () => {
    expect(resolveRunSettings('x', base, {}).pool).toBe(0);
    const config = configFile('[agent]\npool = 2\n');
    expect(resolveRunSettings('x', { ...base, config }, {}).pool).toBe(2);
    expect(resolveRunSettings('x', { ...base, config }, { ARBOR_POOL: '3' }).pool).toBe(3);
    expect(resolveRunSettings('x', { ...base, config, pool: '0' }, { ARBOR_POOL: '3' }).pool).toBe(
      0,
    );
    expect(() =>
      resolveRunSettings('x', { ...base, config: configFile('[agent]\npool = 99\n') }, {}),
    ).toThrow(/agent\.pool/);
  });

  it('applies defaults < config file < environment < flags', () => {
    const config = configFile(
      '[limits]\nmax_steps = 10\nmax_tokens = 1000\ndeadline = "2m"\n[intelligence]\nmodel = "from-file"\nendpoints = ["http://127.0.0.1:1/v1"]\n',
    );
    const fromFile = resolveRunSettings('x', { config }, {});
    expect(fromFile).toMatchObject({
      maxSteps: 10,
      budget: { ceiling: { tokens: 1000 }, onExcess: 'clamp', windows: [] },
      deadlineMs: 120_000,
      maxDepth: 3,
      intelligence: { model: 'from-file' },
    });
    const fromEnv = resolveRunSettings(
      'x',
      { config },
      { ARBOR_MAX_STEPS: '20', ARBOR_MODEL: 'from-env' },
    );
    expect(fromEnv).toMatchObject({ maxSteps: 20, intelligence: { model: 'from-env' } });
    const fromFlags = resolveRunSettings(
      'x',
      { config, 'max-steps': '30', model: 'from-flag' },
      { ARBOR_MAX_STEPS: '20' },
    );
    expect(fromFlags).toMatchObject({ maxSteps: 30, intelligence: { model: 'from-flag' } });
  });

  it('splits an endpoint list and applies the dialect to each', () => {
    const settings = resolveRunSettings(
      'x',
      { ...base, intel: 'http://a.example/v1,http://b.example/v1', dialect: 'anthropic' },
      {},
    );
    expect(settings.intelligence?.endpoints.map((e) => [e.url, e.dialect])).toEqual([
      ['http://a.example/v1', 'anthropic'],
      ['http://b.example/v1', 'anthropic'],
    ]);
  });

  it.each([
    [{ 'max-steps': '0' }, {}, 'Expected `--max-steps` to be a positive integer, got `0`.'],
    [{ 'max-steps': '2.5' }, {}, 'Expected `--max-steps` to be a positive integer, got `2.5`.'],
    [
      {},
      { ARBOR_MAX_TOKENS: 'lots' },
      'Expected `ARBOR_MAX_TOKENS` to be a positive integer, got `lots`.',
    ],
    [{ 'max-depth': '-1' }, {}, 'Expected `--max-depth` to be a non-negative integer, got `-1`.'],
    [{ pool: 'four' }, {}, 'Expected `--pool` to be a non-negative integer, got `four`.'],
    [{}, { ARBOR_POOL: '65' }, 'Expected `ARBOR_POOL` to be at most 64 children, got 65.'],
    [
      { 'budget-usd': '0' },
      {},
      'Expected `--budget-usd` to be a positive amount of US dollars, got `0`.',
    ],
    [{ deadline: '10' }, {}, 'Expected `--deadline` to be a duration'],
    [
      { dialect: 'gemini' },
      {},
      'Expected `--dialect` to be `openai`, `anthropic` or `openai-responses`, got `gemini`.',
    ],
    [
      { intel: 'ftp://x' },
      {},
      '--intel: `endpoints[0].url`: expected an http:// or https:// URL, got "ftp://x"',
    ],
    [
      { intel: 'http://127.0.0.1:99999/v1' },
      {},
      '--intel: `endpoints[0].url`: expected an http:// or https:// URL: the port 99999 is out of range (0 to 65535)',
    ],
    [
      { intel: 'http://127.0.0.1:80a/v1' },
      {},
      'expected an http:// or https:// URL: the port `80a` is not a number',
    ],
    [
      { intel: '127.0.0.1:8080/v1' },
      {},
      'expected an http:// or https:// URL (no `http://` or `https://` in front)',
    ],
    [{ deadline: '99999999999h' }, {}, 'Expected `--deadline` to be at most 24d'],
    [{}, { ARBOR_DEADLINE: '30d' }, 'Expected `ARBOR_DEADLINE` to be at most 24d, got `30d`.'],
    [
      { mcp: ['fs=npx server-a', 'fs=npx server-b'] },
      {},
      '`--mcp fs=…` is given twice; each MCP server needs its own name.',
    ],
    [{ provider: 'thread' }, {}, 'Expected `--provider` to be `process`'],
    [
      {},
      { ARBOR_PROVIDER: 'thread' },
      'Expected `ARBOR_PROVIDER` to be `process` or `queue`, got `thread`.',
    ],
    [{ intel: undefined }, {}, 'No model endpoint'],
    [{ model: undefined }, {}, 'No model name'],
    [
      { 'mock-llm': 'p.json' },
      {},
      '`--mock-llm` runs a scripted model; it cannot be combined with `--intel`',
    ],
  ])('rejects %j %j', (flags, env, message) => {
    expect(() => resolveRunSettings('x', { ...base, ...flags }, env)).toThrow(message);
  });

  it('rejects an empty instruction', () => {
    expect(() => resolveRunSettings('  ', base, {})).toThrow('Expected an instruction');
  });

  it('reports every problem at once, a missing model among them', () => {
    const flags: RunFlags = {
      intel: 'http://127.0.0.1:8080/v1',
      'max-steps': 'WORD',
      deadline: '7x',
      dialect: 'gemini',
    };
    expect(() => resolveRunSettings('', flags, {})).toThrow(
      [
        '5 problems:',
        '  - Expected `--dialect` to be `openai`, `anthropic` or `openai-responses`, got `gemini`.',
        '  - No model name: pass `--model NAME` (or set ARBOR_MODEL, or `intelligence.model` in `--config`).',
        '  - Expected `--max-steps` to be a positive integer, got `WORD`.',
        '  - Expected `--deadline` to be a duration such as `500ms`, `30s`, `5m`, `1h` or `7d`, got `7x`.',
        '  - Expected an instruction: `arbor run "<what to do>"`.',
      ].join('\n'),
    );
  });

  it('reports a bad flag next to a config file that cannot be read, and no missing model', () => {
    let caught: unknown;
    try {
      resolveRunSettings('x', { config: '/no/such/file.toml', 'max-depth': 'deep' }, {});
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({
      code: 'usage',
      details: {
        problems: [
          'Cannot read the config file /no/such/file.toml: ENOENT.',
          'Expected `--max-depth` to be a non-negative integer, got `deep`.',
        ],
      },
    });
  });

  it('takes durations in days and bounds them, from the config file too', () => {
    const week = configFile('[limits]\ndeadline = "7d"\n');
    expect(resolveRunSettings('x', { ...base, config: week }, {}).deadlineMs).toBe(604_800_000);
    const tooLong = configFile('[limits]\ndeadline = "99999999999h"\n');
    expect(() => resolveRunSettings('x', { ...base, config: tooLong }, {})).toThrow(
      `${tooLong}: \`limits.deadline\`: expected at most 24d`,
    );
  });

  it('refuses two [[mcp.server]] tables of one name, naming the file and the name', () => {
    const config = configFile(
      '[[mcp.server]]\nname = "fs"\ncommand = "a"\n[[mcp.server]]\nname = "fs"\ncommand = "b"\n',
    );
    expect(() => resolveRunSettings('x', { ...base, config }, {})).toThrow(
      `${config}: \`mcp.server\` \`fs\` is named twice`,
    );
  });

  it('lets an --mcp flag replace the configured server of its name', () => {
    const config = configFile('[[mcp.server]]\nname = "fs"\ncommand = "a"\n');
    const settings = resolveRunSettings('x', { ...base, config, mcp: ['fs=b --flag'] }, {});
    expect(settings.mcpServers).toEqual([
      expect.objectContaining({ name: 'fs', command: 'b', args: ['--flag'] }),
    ]);
  });

  it('names the file and the key of a bad config', () => {
    const unknown = configFile('[limits]\nmax_stepz = 3\n');
    expect(() => resolveRunSettings('x', { ...base, config: unknown }, {})).toThrow(
      `${unknown}: \`limits\`: unknown field \`max_stepz\``,
    );
    const literalKey = configFile(
      '[[intelligence.endpoint]]\nurl = "http://x/v1"\ncredential = "sk-live-123"\n',
    );
    expect(() => resolveRunSettings('x', { config: literalKey, model: 'm' }, {})).toThrow(
      'expected `env:NAME`',
    );
    const broken = configFile('[limits\n');
    expect(() => resolveRunSettings('x', { ...base, config: broken }, {})).toThrow(
      `${broken}:1:8: invalid TOML: illegal character in key`,
    );
    expect(() => resolveRunSettings('x', { ...base, config: '/no/such/file.toml' }, {})).toThrow(
      'Cannot read the config file /no/such/file.toml: ENOENT',
    );
  });

  it('builds the tree budget from --max-tokens, --budget-usd and the [budget] section', () => {
    const config = configFile(
      [
        '[budget]',
        'usd = 2.5',
        'on_excess = "refuse"',
        '[[budget.window]]',
        'per = "minute"',
        'tokens = 50000',
        'tactic = "degrade"',
        'degrade_model = "small"',
        '[[budget.window]]',
        'per = "day"',
        'requests = 1000',
        '',
      ].join('\n'),
    );
    const settings = resolveRunSettings('x', { ...base, config, 'max-tokens': '9000' }, {});
    expect(settings.budget).toEqual({
      ceiling: { tokens: 9000, usd: 2.5 },
      onExcess: 'refuse',
      windows: [
        { per: 'minute', tokens: 50000, tactic: 'degrade', degrade_model: 'small' },
        { per: 'day', requests: 1000, tactic: 'wait' },
      ],
    });
    const flags = resolveRunSettings('x', { ...base, config, 'budget-usd': '0.25' }, {});
    expect(flags.budget.ceiling).toEqual({ usd: 0.25 });
    expect(resolveRunSettings('x', base, {}).budget).toEqual({
      ceiling: {},
      onExcess: 'clamp',
      windows: [],
    });
  });

  it.each([
    ['[budget]\non_excess = "maybe"\n', '`budget.on_excess`'],
    [
      '[[budget.window]]\nper = "week"\ntokens = 5\n',
      '`budget.window[0].per`: expected "minute" | "hour" | "day", got "week"',
    ],
    ['[[budget.window]]\nper = "day"\n', 'expected `tokens` or `requests` (or both)'],
    [
      '[[budget.window]]\nper = "day"\ntokens = 5\ntactic = "degrade"\n',
      '`tactic = "degrade"` needs a `degrade_model`',
    ],
    [
      '[[budget.window]]\nper = "day"\ntokens = -5\n',
      '`budget.window[0].tokens`: expected number > 0',
    ],
  ])('rejects a bad budget section %j', (text, message) => {
    const config = configFile(text);
    expect(() => resolveRunSettings('x', { ...base, config }, {})).toThrow(message);
  });

  it('reads the [security] section, with --sandbox over it', () => {
    const config = configFile(
      '[security]\nsandbox = "required"\nruntime_trifecta = "deny"\nrisk_ask_at = 0.5\nsensitive_paths = ["prod.yml"]\nuntrusted_tools = ["github.*"]\nnetwork = "host"\negress_max_connections = 8\negress_max_bytes = 1048576\n',
    );
    const settings = resolveRunSettings('x', { ...base, config }, {});
    expect(settings.security).toEqual({
      sandbox: 'required',
      network: 'host',
      egress: { maxConnections: 8, maxBytes: 1_048_576 },
      runtimeTrifecta: { mode: 'deny', sensitive_paths: ['prod.yml'], risk_ask_at: 0.5 },
      untrustedTools: ['github.*'],
    });
    expect(
      resolveRunSettings('x', { ...base, config, 'sandbox-network': 'proxy' }, {}).security.network,
    ).toBe('proxy');
    expect(resolveRunSettings('x', { ...base, config, sandbox: 'off' }, {}).security.sandbox).toBe(
      'off',
    );
    expect(resolveRunSettings('x', base, {}).security).toEqual({
      sandbox: 'auto',
      network: 'proxy',
      egress: { maxConnections: 64, maxBytes: 4 * 1024 ** 3 },
      runtimeTrifecta: { mode: 'ask', sensitive_paths: [], risk_ask_at: 0.8 },
      untrustedTools: [],
    });
  });

  it.each([
    ['[security]\nsandbox = "maybe"\n', '`security.sandbox`'],
    ['[security]\nruntime_trifecta = "sometimes"\n', '`security.runtime_trifecta`'],
    ['[security]\nrisk_ask_at = 1.5\n', '`security.risk_ask_at`'],
    ['[security]\nnetwork = "everything"\n', '`security.network`'],
    ['[security]\negress_max_connections = 0\n', '`security.egress_max_connections`'],
    ['[security]\nuntrusted_tools = ["git*hub"]\n', 'a `*` only at the end'],
    ['[grant]\nnet = ["exa mple.com"]\n', 'grant.net: `exa mple.com`: expected a host name'],
  ])('rejects a bad security setting %j', (text, message) => {
    const config = configFile(text);
    expect(() => resolveRunSettings('x', { ...base, config }, {})).toThrow(message);
  });

  it('rejects a bad --budget-usd', () => {
    expect(() => resolveRunSettings('x', { ...base, 'budget-usd': 'free' }, {})).toThrow(
      '--budget-usd',
    );
  });
});

describe('exitCodeFor', () => {
  it.each([
    ['completed', undefined, 0],
    ['refused', undefined, 5],
    ['exhausted_steps', undefined, 7],
    ['exhausted_tokens', undefined, 7],
    ['exhausted_budget', undefined, 7],
    ['deadline', undefined, 7],
    ['stalled', undefined, 3],
    ['loop_detected', undefined, 3],
    ['cancelled', undefined, 130],
    ['crashed', undefined, 1],
    ['failed', 'intel_unavailable', 4],
    ['failed', 'intel_auth', 4],
    ['failed', 'mcp_unavailable', 6],
    ['failed', 'internal', 1],
  ] as const)('%s (%s) exits %d', (status, code, exit) => {
    expect(exitCodeFor(status, code)).toBe(exit);
  });
});
