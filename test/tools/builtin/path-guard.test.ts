import { execFileSync } from 'node:child_process';
import { access, mkdir, readFile, readdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PathGuard, type OpenWant } from '../../../src/tools/builtin/path-guard.js';
import { builtinHost, caveats, makeTempDir, openDescriptors } from '../../helpers/builtin-tools.js';

/**
 *   base/ws/src/a.ts, base/ws/fifo (a FIFO nobody writes or reads)
 *   base/ws/inner -> src                     stays inside
 *   base/ws/file-link -> src/a.ts            a file link that stays inside
 *   base/ws/out -> ../secret                 leads out
 *   base/ws/to-out-and-back -> ../secret/back   a link outside that leads back in
 *   base/ws/dangling-in -> made/by-link.txt  dangling, inside: a write creates its target
 *   base/ws/dangling-out -> ../secret/planted.txt
 *   base/secret/key.txt, base/secret/back -> ../ws/src
 */
let base: string;
let ws: string;
let remove: () => Promise<void>;

beforeAll(async () => {
  ({ dir: base, remove } = await makeTempDir('arbor-open-'));
  ws = path.join(base, 'ws');
  await mkdir(path.join(ws, 'src'), { recursive: true });
  await mkdir(path.join(base, 'secret'));
  await writeFile(path.join(ws, 'src/a.ts'), 'a\n');
  await writeFile(path.join(base, 'secret/key.txt'), 'key\n');
  execFileSync('mkfifo', [path.join(ws, 'fifo')]);
  await symlink('src', path.join(ws, 'inner'));
  await symlink('src/a.ts', path.join(ws, 'file-link'));
  await symlink('../secret', path.join(ws, 'out'));
  await symlink('../secret/back', path.join(ws, 'to-out-and-back'));
  await symlink('../ws/src', path.join(base, 'secret/back'));
  await symlink('made/by-link.txt', path.join(ws, 'dangling-in'));
  await symlink('../secret/planted.txt', path.join(ws, 'dangling-out'));
});

afterAll(async () => {
  await remove();
});

const guard = () => new PathGuard({ caveats: caveats({ fs_read: [ws], fs_write: [ws] }), cwd: ws });

async function opened(want: OpenWant, p: string) {
  const result = await guard().open('tool', want, p);
  if (!result.ok) return result;
  await result.handle.close();
  const { handle: _handle, ...rest } = result;
  return rest;
}

const exists = (p: string) =>
  access(p).then(
    () => true,
    () => false,
  );

describe('PathGuard.open', () => {
  it.each([
    ['read', 'src/a.ts', 'src/a.ts'],
    ['read', 'inner/a.ts', 'src/a.ts'],
    ['read', 'file-link', 'src/a.ts'],
    ['read', 'to-out-and-back/a.ts', 'src/a.ts'],
    ['edit', 'inner/a.ts', 'src/a.ts'],
    ['dir', 'inner', 'src'],
    ['dir', 'src/..', '.'],
    ['dir', '.', '.'],
  ] as const)('%s %s opens the real %s', async (want, p, real) => {
    expect(await opened(want, p)).toMatchObject({ ok: true, real: path.join(ws, real) });
  });

  it.each([
    ['read', 'out/key.txt', 'secret/key.txt'],
    ['edit', 'out/key.txt', 'secret/key.txt'],
    ['dir', 'out', 'secret'],
    ['write', 'out/new.txt', 'secret/new.txt'],
    ['write', 'out/deep/new.txt', 'secret/deep/new.txt'],
    ['write', 'dangling-out', 'secret/planted.txt'],
  ] as const)('%s %s is refused: it leads to %s', async (want, p, real) => {
    expect(await opened(want, p)).toEqual({
      ok: false,
      refused: true,
      message: `\`tool\` refused: ${path.join(ws, p)} resolves through a symlink to ${path.join(base, real)}, outside ${want === 'read' || want === 'dir' ? 'fs_read' : 'fs_write'} (allowed: ${ws})`,
    });
    expect(await readdir(path.join(base, 'secret'))).toEqual(['back', 'key.txt']);
  });

  it.each([
    ['read', 'fifo', 'is not a regular file'],
    ['edit', 'fifo', 'is not a regular file'],
    ['write', 'fifo', 'is not a regular file'],
    ['dir', 'fifo', 'is not a directory (use `fs.read`)'],
    ['read', 'src', 'is a directory (use `fs.list`)'],
    ['edit', 'inner', 'is a directory (use `fs.list`)'],
    ['write', 'src', 'is a directory'],
    ['write', 'src/..', 'is a directory'],
    ['dir', 'src/a.ts', 'is not a directory (use `fs.read`)'],
    ['read', 'src/a.ts/x', 'has a parent that is not a directory'],
    ['read', 'nope/a.ts', 'does not exist'],
  ] as const)('%s %s: %s, without hanging', async (want, p, why) => {
    expect(await opened(want, p)).toEqual({
      ok: false,
      refused: false,
      message: `\`tool\`: ${path.join(ws, p)} ${why}.`,
    });
  });

  it('creates a file and its missing parents, and says it did', async () => {
    expect(await opened('write', 'new/deeper/file.txt')).toMatchObject({ ok: true, created: true });
    expect(await opened('write', 'new/deeper/file.txt')).toMatchObject({
      ok: true,
      created: false,
    });
    expect(await exists(path.join(ws, 'new/deeper/file.txt'))).toBe(true);
  });

  it('creates the target of a dangling link that stays inside, parents included', async () => {
    expect(await opened('write', 'dangling-in')).toMatchObject({
      ok: true,
      created: true,
      real: path.join(ws, 'made/by-link.txt'),
    });
    expect(await exists(path.join(ws, 'made/by-link.txt'))).toBe(true);
  });

  it('leaks no descriptor, opened or refused', async () => {
    const before = await openDescriptors();
    for (const [want, p] of [
      ['read', 'src/a.ts'],
      ['read', 'out/key.txt'],
      ['read', 'fifo'],
      ['write', 'fifo'],
      ['edit', 'src'],
      ['dir', 'src/a.ts'],
      ['write', 'dangling-out'],
      ['read', 'nope/x'],
    ] as const) {
      await opened(want, p);
    }
    expect(await openDescriptors()).toBe(before);
  });
});

describe('the tools through the walk', () => {
  const host = () => builtinHost({ caveats: caveats({ fs_read: [ws], fs_write: [ws] }), cwd: ws });

  it('fs.read reports the real path of the file it opened (for the sensitive-path taint)', async () => {
    const out = await host().call('fs.read', { path: 'to-out-and-back/a.ts' });
    expect(out).toMatchObject({ content: 'a', isError: false, read: [path.join(ws, 'src/a.ts')] });
  });

  it('fs.write replaces through a file link that stays inside', async () => {
    await writeFile(path.join(ws, 'src/w.ts'), 'old content that is longer\n');
    await symlink('src/w.ts', path.join(ws, 'w-link'));
    const out = await host().call('fs.write', { path: 'w-link', content: 'new\n' });
    expect(out.content).toBe(`Replaced ${ws}/w-link (4 bytes).`);
    expect(await readFile(path.join(ws, 'src/w.ts'), 'utf8')).toBe('new\n');
  });

  it('fs.edit rewrites the file it read, whole, through the same descriptor', async () => {
    await writeFile(path.join(ws, 'src/e.ts'), 'const long_name = 1;\n');
    const out = await host().call('fs.edit', {
      path: 'inner/e.ts',
      old_string: 'long_name',
      new_string: 'n',
    });
    expect(out.isError).toBe(false);
    expect(await readFile(path.join(ws, 'src/e.ts'), 'utf8')).toBe('const n = 1;\n');
  });

  it('fs.list lists a linked directory that stays inside, through its descriptor', async () => {
    const out = await host().call('fs.list', { path: 'inner' });
    expect(out.content).toMatch(
      new RegExp(`^${ws}/inner: \\d+ entries\\na\\.ts \\(file, 2 bytes\\)`),
    );
  });

  it('fs.glob neither enters nor lists symlinks, and never starts above its directory', async () => {
    const all = await host().call('fs.glob', { pattern: '**/a.ts' });
    expect(all.content).toBe('src/a.ts');
    const up = await host().call('fs.glob', { pattern: '../**/a.ts', path: 'src' });
    expect(up.content).toBe('No readable files match `../**/a.ts`.');
    const through = await host().call('fs.glob', { pattern: '*', path: 'out' });
    expect(through.content).toMatch(/refused: .*\/out resolves through a symlink to .*\/secret/);
  });
});
