import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runArbor } from '../helpers/run-arbor.js';

function configFile(text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'arbor-config-check-')), 'arbor.toml');
  writeFileSync(path, text);
  return path;
}

/** The `toml` block of docs/running.md's "Config file" section. */
function docsExample(): string {
  const doc = readFileSync(new URL('../../docs/running.md', import.meta.url), 'utf8');
  const section = doc.slice(doc.indexOf('## Config file'));
  const match = /```toml\n([\s\S]*?)```/.exec(section);
  if (match?.[1] === undefined)
    throw new Error('docs/running.md has no toml block under "Config file"');
  return match[1];
}

describe('arbor config check', () => {
  it('says ok for a valid file on stdout and exits 0', async () => {
    const file = configFile('[limits]\nmax_steps = 10\n[[security.policy]]\naction = "deny"\n');
    const run = await runArbor(['config', 'check', file]);
    expect(run.stdout).toBe(`${file}: ok\n`);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
  });

  it('passes the example config in docs/running.md', async () => {
    const file = configFile(docsExample());
    const run = await runArbor(['config', 'check', file]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
  });

  it('prints every problem with its line and column, in file order, and exits 2', async () => {
    const file = configFile(
      [
        '[limits]', //                          1
        'max_steps = 5', //                     2
        '  max_stepz = 3', //                   3  an unknown key, indented
        '', //                                  4
        '[[security.policy]]', //               5
        'action = "allow"', //                  6
        '', //                                  7
        '[[security.policy]]', //               8
        'action = "ask"', //                    9
        '', //                                  10
        '[[security.policy]]', //               11
        'action = "deny"', //                   12
        '[security.policy.match]', //           13
        'tool = 3', //                          14 the wrong type, in the third rule
        '', //                                  15
        '[[budget.window]]', //                 16 `per` is required and missing
        'tokens = 5', //                        17
      ].join('\n'),
    );
    const run = await runArbor(['config', 'check', file]);
    expect(run.stderr).toBe(
      [
        `${file}:3:3: \`limits\`: unknown field \`max_stepz\``,
        `${file}:14:1: \`security.policy[2].match.tool\`: expected a string, got 3`,
        `${file}:16:1: \`budget.window[0].per\`: expected "minute" | "hour" | "day", got nothing`,
        '',
      ].join('\n'),
    );
    expect(run.stdout).toBe('');
    expect(run.code).toBe(2);
  });

  it('places a rule no JSON Schema can express at the table it is about', async () => {
    const file = configFile(
      '[intelligence]\nendpoints = ["http://a.example/v1"]\n\n[[intelligence.endpoint]]\nurl = "http://b.example/v1"\n',
    );
    const run = await runArbor(['config', 'check', file]);
    expect(run.stderr).toBe(
      `${file}:4:1: \`intelligence.endpoint\`: set either \`intelligence.endpoints\` or \`[[intelligence.endpoint]]\`, not both\n`,
    );
    expect(run.code).toBe(2);
  });

  it('refuses a file that cannot be read in one line and exits 2', async () => {
    const missing = join(mkdtempSync(join(tmpdir(), 'arbor-config-check-')), 'absent.toml');
    const run = await runArbor(['config', 'check', missing]);
    expect(run.stderr).toBe(`arbor: Cannot read the config file ${missing}: ENOENT.\n`);
    expect(run.code).toBe(2);
  });

  it('asks for exactly one file', async () => {
    const run = await runArbor(['config', 'check']);
    expect(run.stderr).toBe('arbor: config check: expected one config file, got 0.\n');
    expect(run.code).toBe(2);
  });
});

describe('config TOML syntax errors', () => {
  const text = '[limits]\nmax_steps = 3\n[security\nsandbox = "off"\n';
  const where = ':3:10: invalid TOML: ';

  it('are FILE:LINE:COLUMN lines from arbor config check', async () => {
    const file = configFile(text);
    const run = await runArbor(['config', 'check', file]);
    expect(run.stderr).toMatch(new RegExp(`^${escape(file + where)}[^\\n]+\\n$`));
    expect(run.code).toBe(2);
  });

  it.each([
    ['run', (file: string) => ['run', '--config', file, '--mock-llm', 'unused.json', 'hi']],
    ['doctor', (file: string) => ['doctor', '--config', file]],
  ])('are FILE:LINE:COLUMN lines, without a stack, from arbor %s --config', async (_, args) => {
    const file = configFile(text);
    const run = await runArbor(args(file));
    expect(run.stderr).toMatch(new RegExp(`^arbor: ${escape(file + where)}[^\\n]+\\n$`));
    expect(run.code).toBe(2);
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
