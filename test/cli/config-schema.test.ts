import { Ajv2020 } from 'ajv/dist/2020.js';
import { parse } from 'smol-toml';
import { beforeAll, describe, expect, it } from 'vitest';
import { runArbor } from '../helpers/run-arbor.js';

/** A config that uses every section, in the forms the docs show. */
const GOOD = `
[intelligence]
model = "gpt-4.1-mini"
timeout = "60s"
retries = 2
[[intelligence.endpoint]]
url = "https://api.openai.com/v1"
credential = "env:OPENAI_API_KEY"
[intelligence.prices."gpt-4.1-mini"]
input_per_mtok = 0.4
output_per_mtok = 1.6

[limits]
max_steps = 30
spawn_rate = "8/2s"

[budget]
usd = 5.0
[[budget.window]]
per = "minute"
tokens = 200000

[[mcp.server]]
name = "github"
url = "https://mcp.example.com/mcp"
tags = ["untrusted_input", "egress"]

[security]
sandbox = "auto"
untrusted_tools = ["github.*"]
[[security.policy]]
action = "ask"
match = { tool = "github.create_issue", caller = ["subagent"] }

[grant]
fs_read = ["/work/repo"]
net = "none"
max_calls = "unlimited"

[agent]
ask_human_fallback = "wait"
pool = 4

[store]
path = ".arbor/arbor.db"
`;

describe('arbor config schema', () => {
  let schema: Record<string, unknown>;
  let validate: ReturnType<Ajv2020['compile']>;

  beforeAll(async () => {
    const run = await runArbor(['config', 'schema']);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    schema = JSON.parse(run.stdout) as Record<string, unknown>;
    // Strict, so a keyword ajv does not know fails here rather than being ignored. URL formats are
    // not checked: ajv needs a plugin for them, and the loader checks them anyway.
    const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
    ajv.addFormat('uri', true);
    validate = ajv.compile(schema);
  });

  it('is a draft 2020-12 schema with a title and descriptions', () => {
    expect(schema).toMatchObject({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      title: 'arbor config file',
      type: 'object',
      additionalProperties: false,
    });
    expect(schema).toHaveProperty(
      'properties.limits.properties.spawn_rate.description',
      'Spawns allowed per period across the run, written `8/2s`.',
    );
  });

  it('accepts a known-good config', () => {
    expect(validate(parse(GOOD))).toBe(true);
    expect(validate.errors).toBeNull();
  });

  it.each([
    ['a string for an integer', '[limits]\nmax_steps = "30"\n', '/limits/max_steps', 'type'],
    ['an unknown key', '[limits]\nmax_stepz = 30\n', '/limits', 'additionalProperties'],
    ['a value outside an enum', '[security]\nsandbox = "maybe"\n', '/security/sandbox', 'enum'],
    [
      'a table for a list',
      '[[security.policy]]\naction = 1\n',
      '/security/policy/0/action',
      'type',
    ],
    ['a missing required key', '[[mcp.server]]\ncommand = "x"\n', '/mcp/server/0', 'required'],
  ])('rejects %s', (_, text, instancePath, keyword) => {
    expect(validate(parse(text))).toBe(false);
    expect(validate.errors).toContainEqual(expect.objectContaining({ instancePath, keyword }));
  });

  it('leaves defaulted keys optional and takes the input forms of transformed values', () => {
    // `on_timeout` and `match` have defaults; `"none"` is turned into `[]` by the loader.
    expect(validate(parse('[[security.policy]]\naction = "deny"\n[grant]\nexec = "none"\n'))).toBe(
      true,
    );
  });
});
