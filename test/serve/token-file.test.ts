import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkTokenPlace, serveTokenFile, writeTokenFile } from '../../src/serve/token-file.js';

const temp = () => mkdtempSync(join(tmpdir(), 'arbor-token-'));

describe('serveTokenFile', () => {
  const env = { ARBOR_STATE_DIR: '/state' };
  it.each([
    ['a store, relative or absolute', ['a.db', '/w'], ['/w/a.db', '/elsewhere'], true],
    ['two stores', ['a.db', '/w'], ['b.db', '/w'], false],
    [':memory: in one directory', [':memory:', '/w'], [':memory:', '/w'], true],
    [':memory: in two directories', [':memory:', '/w'], [':memory:', '/v'], false],
    ['a store and :memory:', ['/w/a.db', '/w'], [':memory:', '/w'], false],
  ])('%s: the same file is %s', (_name, [db1, cwd1], [db2, cwd2], same) => {
    const one = serveTokenFile(env, db1 ?? '', cwd1 ?? '');
    const two = serveTokenFile(env, db2 ?? '', cwd2 ?? '');
    expect(one).toMatch(/^\/state\/serve-tokens\/[0-9a-f]{16}$/);
    expect(one === two).toBe(same);
  });

  it('follows XDG_STATE_HOME when ARBOR_STATE_DIR is not set', () => {
    expect(serveTokenFile({ XDG_STATE_HOME: '/xdg' }, ':memory:', '/w')).toMatch(
      /^\/xdg\/arbor\/serve-tokens\//,
    );
  });
});

describe('checkTokenPlace', () => {
  const grant = (): { fs_read: string[]; fs_write: string[] } => ({
    fs_read: ['/data'],
    fs_write: [],
  });
  it.each([
    ['/w/state/serve-tokens/x', 'the working directory'],
    ['/stores/state/serve-tokens/x', 'the store’s directory'],
    ['/data/arbor/serve-tokens/x', 'the grant’s fs_read'],
  ])('refuses %s (inside %s)', (file, what) => {
    expect(() => {
      checkTokenPlace(file, {
        cwd: '/w',
        dbPath: '/stores/a.db',
        grant: grant(),
      });
    }).toThrow(`inside ${what}`);
  });

  it('takes the user state directory, and does not read `all` as covering it', () => {
    expect(() => {
      checkTokenPlace('/home/u/.local/state/arbor/serve-tokens/x', {
        cwd: '/w',
        dbPath: ':memory:',
        grant: { fs_read: 'all', fs_write: ['/w'] },
      });
    }).not.toThrow();
  });
});

describe('writeTokenFile', () => {
  it('writes 0600 in a 0700 directory, replacing an old token in one step, leaving no temporary', () => {
    const dir = join(temp(), 'serve-tokens');
    const file = join(dir, 'abc');
    writeTokenFile(file, 'old\n');
    writeTokenFile(file, 'new\n');
    expect(readFileSync(file, 'utf8')).toBe('new\n');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(readdirSync(dir)).toEqual(['abc']);
  });

  it('makes an existing directory 0700', () => {
    const dir = join(temp(), 'serve-tokens');
    mkdirSync(dir, { mode: 0o755 });
    writeTokenFile(join(dir, 'abc'), 't\n');
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  it('refuses a directory that is a link (planted to send the token elsewhere)', () => {
    const base = temp();
    const elsewhere = join(base, 'elsewhere');
    mkdirSync(elsewhere);
    symlinkSync(elsewhere, join(base, 'serve-tokens'));
    expect(() => {
      writeTokenFile(join(base, 'serve-tokens', 'abc'), 't\n');
    }).toThrow(/is not a directory of this user/);
    expect(readdirSync(elsewhere)).toEqual([]);
  });
});
