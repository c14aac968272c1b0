import fc from 'fast-check';
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isArborError, type Scope } from '../../src/protocol/index.js';
import {
  scopeLeq,
  isInside,
  meetPathScopes,
  normalizePath,
  pathScopeLeq,
  permitsPath,
  resolveInside,
} from '../../src/authority/index.js';

const cwd = '/ws';

describe('normalizePath / isInside', () => {
  it.each([
    ['src/a.ts', '/ws/src/a.ts'],
    ['./src/../docs/', '/ws/docs'],
    ['/ws/../etc/passwd', '/etc/passwd'],
    ['/a//b/./c/..', '/a/b'],
    ['', '/ws'],
    ['../../..', '/'],
  ])('`%s` → `%s`, without touching the filesystem', (input, expected) => {
    expect(normalizePath(input, { cwd })).toBe(expected);
  });

  it('refuses a relative cwd', () => {
    expect(() => normalizePath('a', { cwd: 'ws' })).toThrow(/absolute path, got `ws`/);
  });

  it.each([
    ['/ws', '/ws', true],
    ['/ws', '/ws/a/b', true],
    ['/ws', '/ws-secret', false],
    ['/ws', '/ws-secret/a', false],
    ['/ws', '/w', false],
    ['/ws/src', '/ws', false],
    ['/', '/anything', true],
  ])('isInside(%s, %s) is %s (whole components)', (root, target, expected) => {
    expect(isInside(root, target)).toBe(expected);
  });
});

describe('permitsPath', () => {
  it.each<[Scope, string, boolean]>([
    [['/ws'], '/ws/src/a.ts', true],
    [['/ws'], '/ws', true],
    [['/ws'], '/ws/../etc/passwd', false],
    [['/ws'], '/ws-secret', false],
    [['/ws'], '/ws-secret/key', false],
    [['/ws'], '/ws/src/../../etc/passwd', false],
    [['src/'], '/ws/src/a.ts', true],
    [['src/'], '/ws/src', true],
    [['src/'], '/ws/srcx/a.ts', false],
    [['src/'], 'src/a.ts', true],
    [['src/'], 'docs/a.md', false],
    [['./src/../docs'], '/ws/docs/a.md', true],
    [['src/a.ts'], '/ws/src/a.ts', true],
    [['src/a.ts'], '/ws/src/a.ts.bak', false],
    [[], '/ws', false],
    [[], '/ws/a', false],
    ['all', '/etc/passwd', true],
  ])('%j allows `%s`: %s', (scope, p, expected) => {
    expect(permitsPath(scope, p, { cwd })).toBe(expected);
  });
});

/** Paths over a tiny tree, so random scopes and paths overlap often. */
const segment = fc.constantFrom('a', 'b', 'ab', '..', '.');
const relPath = fc.array(segment, { minLength: 0, maxLength: 4 }).map((parts) => parts.join('/'));
const somePath = fc.oneof(
  relPath,
  relPath.map((p) => `/ws/${p}`),
  relPath.map((p) => `/${p}`),
);
const pathScope: fc.Arbitrary<Scope> = fc.oneof(
  fc.constant('all' as const),
  fc.array(somePath, { maxLength: 4 }),
);

describe('meetPathScopes / pathScopeLeq', () => {
  it('the meet allows exactly the paths both sides allow', () => {
    fc.assert(
      fc.property(pathScope, pathScope, somePath, (a, b, p) => {
        const both = permitsPath(a, p, { cwd }) && permitsPath(b, p, { cwd });
        expect(permitsPath(meetPathScopes(a, b, { cwd }), p, { cwd })).toBe(both);
      }),
    );
  });

  it('a ⊑ b means every path a allows, b allows; the exact order implies it', () => {
    fc.assert(
      fc.property(pathScope, pathScope, somePath, (a, b, p) => {
        if (pathScopeLeq(a, b, { cwd }) && permitsPath(a, p, { cwd })) {
          expect(permitsPath(b, p, { cwd })).toBe(true);
        }
        if (scopeLeq(a, b)) expect(pathScopeLeq(a, b, { cwd })).toBe(true);
        expect(pathScopeLeq(meetPathScopes(a, b, { cwd }), a, { cwd })).toBe(true);
      }),
    );
  });

  it.each<[Scope, Scope, Scope]>([
    [['/ws'], ['src/'], ['/ws/src']],
    [['src/'], ['/ws'], ['/ws/src']],
    [['/ws'], 'all', ['/ws']],
    ['all', 'all', 'all'],
    [['/ws/src'], ['/ws/docs'], []],
    [['/ws'], ['/ws-secret'], []],
    [['/ws'], [], []],
  ])('%j ⊓ %j = %j', (a, b, expected) => {
    expect(meetPathScopes(a, b, { cwd })).toEqual(expected);
  });
});

describe('resolveInside (real files and symlinks)', () => {
  let base: string;
  let ws: string;
  let secret: string;

  beforeAll(async () => {
    base = await realpath(await mkdtemp(path.join(tmpdir(), 'arbor-path-scope-')));
    ws = path.join(base, 'ws');
    secret = path.join(base, 'ws-secret');
    await mkdir(path.join(ws, 'src'), { recursive: true });
    await mkdir(secret);
    await writeFile(path.join(ws, 'src', 'a.ts'), 'a');
    await writeFile(path.join(secret, 'key'), 'secret');
    await symlink(secret, path.join(ws, 'escape'));
    await symlink(path.join(secret, 'key'), path.join(ws, 'key-link'));
    await symlink(path.join(secret, 'planted.sh'), path.join(ws, 'dangling'));
    await symlink('src', path.join(ws, 'inner'));
    await symlink('loop-b', path.join(ws, 'loop-a'));
    await symlink('loop-a', path.join(ws, 'loop-b'));
    await symlink(ws, path.join(base, 'ws-link'));
  });

  afterAll(async () => {
    await rm(base, { recursive: true, force: true });
  });

  it.each([
    ['src/a.ts', 'src/a.ts'],
    ['src/new-file.ts', 'src/new-file.ts'],
    ['new-dir/deeper/file.ts', 'new-dir/deeper/file.ts'],
    ['inner/a.ts', 'src/a.ts'],
    ['inner/not-yet.ts', 'src/not-yet.ts'],
    ['./src/../src/a.ts', 'src/a.ts'],
    ['.', ''],
  ])('`%s` is inside, at its real path', async (p, real) => {
    const result = await resolveInside(ws, p);
    expect(result).toEqual({ inside: true, path: path.join(ws, real) });
  });

  it('accepts an absolute path inside the root', async () => {
    const result = await resolveInside(ws, path.join(ws, 'src', 'a.ts'));
    expect(result.inside).toBe(true);
  });

  it.each([
    ['../ws-secret/key', /is outside/],
    ['src/../../ws-secret/key', /is outside/],
    ['escape/key', /resolves through a symlink to `.*ws-secret\/key`, outside/],
    ['escape/new-file', /resolves through a symlink to `.*ws-secret\/new-file`, outside/],
    ['key-link', /resolves through a symlink to `.*ws-secret\/key`, outside/],
    ['dangling', /resolves through a symlink to `.*ws-secret\/planted.sh`, outside/],
    ['loop-a', /symlink loop/],
    ['loop-a/file', /symlink loop/],
  ])('`%s` is refused', async (p, reason) => {
    const result = await resolveInside(ws, p);
    expect(result.inside).toBe(false);
    if (!result.inside) expect(result.reason).toMatch(reason);
  });

  it('refuses the sibling directory whose name starts with the root’s', async () => {
    const result = await resolveInside(ws, secret);
    expect(result).toMatchObject({ inside: false, path: path.join(secret) });
  });

  it('resolves a root given through a symlink', async () => {
    const result = await resolveInside(path.join(base, 'ws-link'), 'src/a.ts');
    expect(result).toEqual({ inside: true, path: path.join(ws, 'src', 'a.ts') });
  });

  it('refuses a relative root', async () => {
    const error: unknown = await resolveInside('ws', 'a').catch((e: unknown) => e);
    expect(isArborError(error, 'internal')).toBe(true);
  });

  it('honours an aborted signal', async () => {
    const signal = AbortSignal.abort(new Error('stop'));
    await expect(resolveInside(ws, 'src/x.ts', { signal })).rejects.toThrow('stop');
  });
});
