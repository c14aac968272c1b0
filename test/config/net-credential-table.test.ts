import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveRunSettings, type RunFlags } from '../../src/config/index.js';
import { openSettings } from '../../src/api/open-settings.js';
import { isArborError } from '../../src/protocol/index.js';

const TOKEN = 'ghp_brokered0123456789abcdefTOKEN';
const base: RunFlags = { intel: 'http://127.0.0.1:8080/v1', model: 'm' };

function dir(): string {
  return mkdtempSync(join(tmpdir(), 'arbor-netcred-'));
}

function configFile(text: string): string {
  const path = join(dir(), 'arbor.toml');
  writeFileSync(path, text);
  return path;
}

/** A `[[net.credential]]` table with these keys (strings, TOML-quoted). */
function table(keys: Record<string, string>): string {
  const lines = Object.entries(keys).map(([key, value]) => `${key} = ${JSON.stringify(value)}`);
  return `[[net.credential]]\n${lines.join('\n')}\n`;
}

const good = { host: 'api.github.com', header: 'authorization', value: 'env:GH_TOKEN' };

/** The problem a config of these tables gives, or a failure when it resolves. */
function problemOf(text: string, env: NodeJS.ProcessEnv = {}): string {
  const config = configFile(text);
  try {
    resolveRunSettings('x', { ...base, config }, env);
  } catch (error) {
    if (!isArborError(error)) throw error;
    return error.message;
  }
  throw new Error('the config resolved');
}

describe('[[net.credential]]', () => {
  it('resolves `env:NAME` from the environment, and `file:` with its trailing newline trimmed', () => {
    const file = join(dir(), 'token');
    writeFileSync(file, `${TOKEN}-file\n\n`);
    const config = configFile(
      table(good) +
        table({ host: '127.0.0.1:8443', header: 'X-Api-Key', value: `file:${file}` }) +
        table({ host: '[::1]', header: 'authorization', value: 'env:GH_TOKEN' }),
    );
    const settings = resolveRunSettings('x', { ...base, config }, { GH_TOKEN: `Bearer ${TOKEN}` });
    expect(settings.netCredentials).toEqual([
      { host: 'api.github.com', header: 'authorization', value: `Bearer ${TOKEN}` },
      { host: '127.0.0.1', port: 8443, header: 'x-api-key', value: `${TOKEN}-file` },
      { host: '::1', header: 'authorization', value: `Bearer ${TOKEN}` },
    ]);
  });

  it('is none when the file has no table', () => {
    expect(resolveRunSettings('x', base, {}).netCredentials).toEqual([]);
  });

  it.each([
    [
      'an unset variable',
      table(good),
      {},
      '`net.credential[0].value`: the environment variable `GH_TOKEN` is not set',
    ],
    [
      'an empty variable',
      table(good),
      { GH_TOKEN: '' },
      '`net.credential[0].value`: the environment variable `GH_TOKEN` is not set',
    ],
    [
      'a missing file, naming its index',
      table(good) + table({ ...good, host: 'example.com', value: 'file:/no/such/token' }),
      { GH_TOKEN: TOKEN },
      '`net.credential[1].value`: cannot read /no/such/token (ENOENT)',
    ],
    [
      'a value too short to be scrubbed',
      table(good),
      { GH_TOKEN: 'Bearer abc' },
      '`net.credential[0].value`: the value is shorter than 8 characters (without its scheme word)',
    ],
    [
      'a value with a line break',
      table(good),
      { GH_TOKEN: `${TOKEN}\nx-evil: 1` },
      '`net.credential[0].value`: the value holds a line break or NUL',
    ],
  ])('refuses %s', (_what, text, env, message) => {
    expect(problemOf(text, env)).toContain(message);
  });

  it.each([
    ['a literal value', { value: TOKEN }, '`net.credential[0].value`: expected `env:NAME` or'],
    ['a relative file', { value: 'file:token.txt' }, '`net.credential[0].value`: expected `env:'],
    ['a wildcard host', { host: '*.github.com' }, 'not a wildcard'],
    ['a URL for a host', { host: 'https://api.github.com' }, 'expected a host name, not a URL'],
    ['a bad port', { host: 'api.github.com:0' }, 'expected a port from 1 to 65535'],
    ['a header that is no name', { header: 'x api' }, 'expected an HTTP header name'],
    ['a hop-by-hop header', { header: 'Connection' }, '`Connection` is a connection header'],
    ['the host header', { header: 'host' }, '`host` is a connection header'],
  ])('refuses %s, naming the table and key', (_what, change, message) => {
    const text = table({ ...good, ...change });
    const problem = problemOf(text, { GH_TOKEN: TOKEN });
    const key = Object.keys(change)[0] ?? '';
    expect(problem).toContain(`net.credential[0].${key}`);
    expect(problem).toContain(message);
    // A literal written where a reference belongs is never repeated back.
    if (key === 'value') expect(problem).not.toContain(TOKEN);
  });

  it('refuses a header given twice for one host', () => {
    const text = table(good) + table({ ...good, host: 'API.github.com:443' });
    expect(problemOf(text, { GH_TOKEN: TOKEN })).toContain(
      '`net.credential[1].header`: `authorization` of `api.github.com` is given already, by table 0',
    );
  });

  it('reports every unresolved table at once', () => {
    const text = table(good) + table({ ...good, header: 'x-other', value: 'env:OTHER' });
    const problem = problemOf(text);
    expect(problem).toContain('`net.credential[0].value`: the environment variable `GH_TOKEN`');
    expect(problem).toContain('`net.credential[1].value`: the environment variable `OTHER`');
  });
});

describe('Arbor.open netCredentials', () => {
  const intelligence = { endpoints: ['http://127.0.0.1:1/v1'], model: 'm' };

  it('resolves them from the options’ environment', async () => {
    const settings = await openSettings(
      { intelligence, store: ':memory:', netCredentials: [good] },
      { GH_TOKEN: TOKEN },
    );
    expect(settings.base.netCredentials).toEqual([
      { host: 'api.github.com', header: 'authorization', value: TOKEN },
    ]);
  });

  it('refuses one it cannot resolve, naming it', async () => {
    await expect(
      openSettings({ intelligence, store: ':memory:', netCredentials: [good] }, {}),
    ).rejects.toThrow('Arbor.open: `net.credential[0].value`: the environment variable `GH_TOKEN`');
  });
});
