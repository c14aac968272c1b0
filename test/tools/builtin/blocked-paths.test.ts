import { access, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Scope } from '../../../src/protocol/index.js';
import { blockedPath, type PathAxis } from '../../../src/tools/builtin/blocked-paths.js';
import { builtinHost, caveats, makeTempDir } from '../../helpers/builtin-tools.js';

const WS = '/ws';
const rules = (writeScope: Scope = [WS]) => ({ protect: [], writeScope, cwd: WS });

const ARBOR = "an `.arbor` directory (arbor's own state), which no agent may read or write";

describe('blockedPath: `.arbor` directories, for reads and writes', () => {
  it.each([
    ['fs_read', '/ws/sub/.arbor/arbor.db', `is inside ${ARBOR}`],
    ['fs_write', '/ws/sub/.arbor/serve-token', `is inside ${ARBOR}`],
    ['fs_read', '/ws/sub/.arbor', `is ${ARBOR}`],
    ['fs_read', '/ws/.arbor-notes/x', undefined],
    ['fs_read', '/ws/sub/arbor/x', undefined],
  ] as const)('%s %s', (axis: PathAxis, target, expected) => {
    expect(blockedPath(axis, target, rules())).toBe(expected);
  });
});

describe('blockedPath: what git runs from a `.git` directory, for writes', () => {
  it.each([
    ['/ws/.git/config', true],
    ['/ws/.git/config.worktree', true],
    ['/ws/.git/commondir', true],
    ['/ws/.git/gitdir', true],
    ['/ws/.git/hooks/pre-commit', true],
    ['/ws/.git/hooks', true],
    ['/ws/.git/info/attributes', true],
    ['/ws/.git/modules/lib/config', true],
    ['/ws/.git/modules/lib/nested/modules/deep/hooks/post-checkout', true],
    ['/ws/.git/worktrees/w1/HEAD', true],
    ['/ws/.git', true],
    ['/ws/sub/.git', true],
    ['/ws/vendor/x/.git/hooks/pre-push', true],
    ['/ws/.git/HEAD', false],
    ['/ws/.git/refs/heads/main', false],
    ['/ws/.git/objects/ab/cdef', false],
    ['/ws/.git/modules/lib/HEAD', false],
    ['/ws/.github/workflows/ci.yml', false],
    ['/ws/src/config', false],
  ])('writing %s refused=%s', (target, refused) => {
    const why = blockedPath('fs_write', target, rules());
    expect(why !== undefined, why).toBe(refused);
    if (refused) expect(why).toMatch(/git runs what .* outside the sandbox.*name it in fs_write/);
  });

  it('reads stay allowed', () => {
    expect(blockedPath('fs_read', '/ws/.git/config', rules())).toBeUndefined();
  });

  it.each([
    [['/ws/.git/hooks'], '/ws/.git/hooks/pre-commit', false],
    [['/ws/.git'], '/ws/.git/config', false],
    [['./.git/hooks'], '/ws/.git/hooks/pre-commit', false],
    [['/ws/.git/hooks'], '/ws/.git/config', true],
    [['.'], '/ws/.git/hooks/pre-commit', true],
    [['/ws', '/ws/.git/hooks'], '/ws/.git/config', true],
    ['all', '/ws/.git/config', true],
  ] as const)('fs_write %j: writing %s refused=%s', (scope, target, refused) => {
    const writeScope: Scope = scope === 'all' ? 'all' : [...scope];
    expect(blockedPath('fs_write', target, rules(writeScope)) !== undefined).toBe(refused);
  });
});

/**
 *   ws/sub/.arbor/arbor.db         another project's state
 *   ws/state-link -> sub/.arbor
 *   ws/.git/{config, HEAD, hooks/} a git directory (no hooks written yet)
 *   ws/hooks-link -> .git/hooks
 *   ws/deep-link -> .git/info/new/dir   into a missing part of the git directory
 */
let ws: string;
let remove: () => Promise<void>;

beforeAll(async () => {
  ({ dir: ws, remove } = await makeTempDir('arbor-blocked-'));
  await mkdir(path.join(ws, 'sub/.arbor'), { recursive: true });
  await writeFile(path.join(ws, 'sub/.arbor/arbor.db'), 'state');
  await symlink('sub/.arbor', path.join(ws, 'state-link'));
  await mkdir(path.join(ws, '.git/hooks'), { recursive: true });
  await writeFile(path.join(ws, '.git/config'), '[core]\n');
  await writeFile(path.join(ws, '.git/HEAD'), 'ref: refs/heads/main\n');
  await symlink('.git/hooks', path.join(ws, 'hooks-link'));
  await symlink('.git/info/new/dir', path.join(ws, 'deep-link'));
});

afterAll(async () => {
  await remove();
});

const host = (fsWrite: string[] = [ws]) =>
  builtinHost({ caveats: caveats({ fs_read: [ws], fs_write: fsWrite }), cwd: ws });

const exists = (p: string) =>
  access(p).then(
    () => true,
    () => false,
  );

describe('the file tools refuse `.arbor` directories', () => {
  it.each([
    ['fs.read', { path: 'sub/.arbor/arbor.db' }, `sub/.arbor/arbor.db is inside ${ARBOR}`],
    ['fs.write', { path: 'sub/.arbor/arbor.db', content: 'x' }, `sub/.arbor/arbor.db is inside`],
    [
      'fs.edit',
      { path: 'sub/.arbor/arbor.db', old_string: 'state', new_string: 'x' },
      'sub/.arbor/arbor.db is inside',
    ],
    ['fs.list', { path: 'sub/.arbor' }, `sub/.arbor is ${ARBOR}`],
    [
      'fs.read',
      { path: 'state-link/arbor.db' },
      `state-link/arbor.db resolves through a symlink to WS/sub/.arbor/arbor.db, which is inside ${ARBOR}`,
    ],
  ])('%s %j', async (tool, args, message) => {
    const out = await host().call(tool, args);
    expect(out).toMatchObject({ isError: true, refused: true });
    expect(out.content).toContain(`\`${tool}\` refused: ${ws}/${message.replace('WS', ws)}`);
    expect(await readFile(path.join(ws, 'sub/.arbor/arbor.db'), 'utf8')).toBe('state');
  });

  it('fs.glob leaves matches inside `.arbor` out', async () => {
    const out = await host().call('fs.glob', { pattern: 'sub/.arbor/*' });
    expect(out.content).toBe('No readable files match `sub/.arbor/*`.');
  });
});

describe('fs.write and fs.edit cannot plant what git runs', () => {
  it.each([
    [
      'fs.write',
      { path: '.git/hooks/pre-commit', content: '#!/bin/sh\n' },
      '.git/hooks/pre-commit',
    ],
    ['fs.write', { path: '.git', content: 'gitdir: /elsewhere\n' }, '.git'],
    [
      'fs.edit',
      { path: '.git/config', old_string: '[core]', new_string: '[core]\nfsmonitor = x' },
      '.git/config',
    ],
    [
      'fs.write',
      { path: 'hooks-link/post-commit', content: '#!/bin/sh\n' },
      'hooks-link/post-commit',
    ],
    ['fs.write', { path: 'deep-link/x', content: 'x' }, 'deep-link/x'],
  ])('%s %j is refused', async (tool, args, shown) => {
    const out = await host().call(tool, args);
    expect(out).toMatchObject({ isError: true, refused: true });
    expect(out.content).toMatch(
      new RegExp(`^\`${tool}\` refused: ${ws}/${shown} .*git runs what .* outside the sandbox`),
    );
    expect(await exists(path.join(ws, '.git/hooks/pre-commit'))).toBe(false);
    expect(await exists(path.join(ws, '.git/hooks/post-commit'))).toBe(false);
    expect(await exists(path.join(ws, '.git/info'))).toBe(false);
    expect(await readFile(path.join(ws, '.git/config'), 'utf8')).toBe('[core]\n');
  });

  it('names the file and says how to grant it', async () => {
    const out = await host().call('fs.write', { path: '.git/hooks/pre-commit', content: 'x' });
    expect(out.content).toBe(
      `\`fs.write\` refused: ${ws}/.git/hooks/pre-commit is inside \`hooks\` of the git directory ` +
        `${ws}/.git; git runs what is written there (hooks, fsmonitor, filters) outside the ` +
        `sandbox, as the user. To allow it, name it in fs_write explicitly: an entry inside ` +
        `${ws}/.git, such as ${ws}/.git/hooks`,
    );
  });

  it('reads the git directory, and writes the rest of it', async () => {
    expect((await host().call('fs.read', { path: '.git/config' })).isError).toBe(false);
    const head = await host().call('fs.write', { path: '.git/HEAD', content: 'ref: x\n' });
    expect(head.isError).toBe(false);
  });

  it('writes hooks when fs_write names them explicitly, and nothing else of .git', async () => {
    const granted = host([ws, `${ws}/.git/hooks`]);
    const hook = await granted.call('fs.write', { path: 'hooks-link/pre-push', content: 'x' });
    expect(hook.content).toBe(`Created ${ws}/hooks-link/pre-push (1 bytes).`);
    const config = await granted.call('fs.write', { path: '.git/config', content: 'x' });
    expect(config.content).toMatch(/refused: .*\/\.git\/config is inside `config`/);
  });
});
