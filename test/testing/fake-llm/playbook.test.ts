import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isArborError } from '../../../src/protocol/index.js';
import { loadPlaybook, parsePlaybook } from '../../../src/testing/index.js';

function configError(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (isArborError(error, 'config')) return error.message;
    throw error;
  }
  throw new Error('expected the playbook to be refused');
}

describe('playbook validation', () => {
  it('accepts the documented format and applies defaults', () => {
    const playbook = parsePlaybook({
      scripts: [
        {
          name: 'child',
          match: { contains: 'You are the child', model: 'm', dialect: 'anthropic' },
          steps: [
            { text: 'calling', tool_calls: [{ name: 'subagent.run', args: { a: 1 }, id: 'x' }] },
            { faults: [{ status: 503, retry_after: 1 }, { kind: 'reset' }], text: 'ok' },
            {
              fault: { status: 500, body: 'boom' },
              delay_ms: 5,
              usage: { input_tokens: 1, output_tokens: 2 },
            },
          ],
          after_last: 'error',
        },
        { steps: [{ tool_calls: [{ name: 'finish' }] }] },
      ],
    });
    expect(playbook.scripts[0]?.steps[1]?.faults).toEqual([
      { kind: 'status', status: 503, retry_after: 1 },
      { kind: 'reset' },
    ]);
    expect(playbook.scripts[1]?.after_last).toBe('repeat');
    expect(playbook.scripts[1]?.steps[0]?.tool_calls).toEqual([{ name: 'finish', args: {} }]);
  });

  it.each<[string, unknown, string]>([
    ['no scripts', { scripts: [] }, '`scripts`: expected at least one script'],
    ['not an object', [], 'expected an object, got an empty array'],
    [
      'a script without steps',
      { scripts: [{ steps: [] }] },
      '`scripts[0].steps`: expected at least one step',
    ],
    [
      'a misspelt field',
      { scripts: [{ stepz: [{ text: 'x' }], steps: [{}] }] },
      '`scripts[0]`: unknown field `stepz`',
    ],
    [
      'a status out of range',
      { scripts: [{ steps: [{ fault: { status: 700 } }] }] },
      '`scripts[0].steps[0].fault.status`: expected number <= 599, got 700',
    ],
    [
      'an unknown fault kind',
      { scripts: [{ steps: [{ fault: { kind: 'explode' } }] }] },
      '`scripts[0].steps[0].fault.kind`: expected "malformed" | "reset" | "hang" | "cut", got "explode"',
    ],
    [
      'a fault with neither status nor kind',
      { scripts: [{ steps: [{ faults: [{ retry_after: 1 }] }] }] },
      '`scripts[0].steps[0].faults[0]`: expected either `status` (an HTTP error, 400–599) or `kind`',
    ],
    [
      'retry_after on a kind fault',
      { scripts: [{ steps: [{ fault: { kind: 'hang', retry_after: 1 } }] }] },
      '`scripts[0].steps[0].fault`: `body` and `retry_after` go with `status` only',
    ],
    [
      'both fault and faults',
      { scripts: [{ steps: [{ fault: { kind: 'hang' }, faults: [{ kind: 'reset' }] }] }] },
      '`scripts[0].steps[0]`: use `fault` (every request) or `faults` (one per request, in order), not both',
    ],
    [
      'a tool call without a name',
      { scripts: [{ steps: [{ tool_calls: [{ args: {} }] }] }] },
      '`scripts[0].steps[0].tool_calls[0].name`: required field is missing',
    ],
    [
      'negative usage',
      { scripts: [{ steps: [{ usage: { input_tokens: -1, output_tokens: 0 } }] }] },
      '`scripts[0].steps[0].usage.input_tokens`: expected a non-negative integer, got -1',
    ],
    [
      'a bad after_last',
      { scripts: [{ steps: [{}], after_last: 'loop' }] },
      '`scripts[0].after_last`: expected "repeat" | "error", got "loop"',
    ],
    [
      'a bad dialect',
      { scripts: [{ match: { dialect: 'gemini' }, steps: [{}] }] },
      '`scripts[0].match.dialect`: expected "openai" | "anthropic" | "openai-responses", got "gemini"',
    ],
  ])('refuses %s, naming the field', (_name, playbook, message) => {
    const text = configError(() => parsePlaybook(playbook, 'p.json'));
    expect(text.startsWith('Playbook `p.json`: ')).toBe(true);
    expect(text).toContain(message);
  });
});

describe('loadPlaybook', () => {
  it('reads and validates a file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'arbor-playbook-'));
    const file = join(dir, 'ok.json');
    await writeFile(file, JSON.stringify({ scripts: [{ steps: [{ text: 'hi' }] }] }));
    expect((await loadPlaybook(file)).scripts[0]?.steps[0]?.text).toBe('hi');
  });

  it.each([
    ['a missing file', null, /^Cannot read playbook `.*missing\.json`: no such file\.$/],
    ['a file that is not JSON', '{"scripts": [', /^Playbook `.*missing\.json` is not valid JSON: /],
    [
      'an invalid playbook',
      '{"scripts": []}',
      /^Playbook `.*missing\.json`: `scripts`: expected at least one script/,
    ],
  ])('fails with a config error for %s', async (_name, content, message) => {
    const dir = await mkdtemp(join(tmpdir(), 'arbor-playbook-'));
    const file = join(dir, 'missing.json');
    if (content !== null) await writeFile(file, content);
    const error = await loadPlaybook(file).catch((e: unknown) => e);
    expect(isArborError(error, 'config')).toBe(true);
    expect((error as Error).message).toMatch(message);
  });
});
