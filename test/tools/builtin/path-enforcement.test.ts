import { access, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinHost, caveats, makeTempDir } from '../../helpers/builtin-tools.js';
import { withWriteLane } from '../../../src/authority/index.js';

/**
 * One real tree for every refusal:
 *
 *   base/ws/                 the working directory, the only fs_read and fs_write root
 *     src/a.ts, docs/readme.md
 *     link-out  -> ../secret            a symlinked directory leading out
 *     key-link.txt -> ../secret/key.txt a symlinked file leading out
 *     inner -> src                      a symlink that stays inside
 *     dangling -> ../secret/new.txt     a dangling link leading out
 *     src/to-docs -> ../docs            inside the worktree, outside a `src/` lane
 *   base/ws-secret/key.txt              a sibling sharing the root's prefix
 *   base/secret/key.txt                 outside everything
 */
let base: string;
let ws: string;
let remove: () => Promise<void>;

beforeAll(async () => {
  ({ dir: base, remove } = await makeTempDir('arbor-guard-'));
  ws = path.join(base, 'ws');
  await mkdir(path.join(ws, 'src'), { recursive: true });
  await mkdir(path.join(ws, 'docs'));
  await mkdir(path.join(base, 'ws-secret'));
  await mkdir(path.join(base, 'secret'));
  await writeFile(path.join(ws, 'src/a.ts'), 'export const a = 1;\n');
  await writeFile(path.join(ws, 'docs/readme.md'), '# readme\n');
  await writeFile(path.join(base, 'ws-secret/key.txt'), 'sibling secret\n');
  await writeFile(path.join(base, 'secret/key.txt'), 'outside secret\n');
  await symlink('../secret', path.join(ws, 'link-out'));
  await symlink('../secret/key.txt', path.join(ws, 'key-link.txt'));
  await symlink('src', path.join(ws, 'inner'));
  await symlink('../secret/new.txt', path.join(ws, 'dangling'));
  await symlink('../docs', path.join(ws, 'src/to-docs'));
  await symlink('loop-b', path.join(ws, 'loop-a'));
  await symlink('loop-a', path.join(ws, 'loop-b'));
});

afterAll(async () => {
  await remove();
});

const host = () => builtinHost({ caveats: caveats({ fs_read: [ws], fs_write: [ws] }), cwd: ws });

async function exists(p: string): Promise<boolean> {
  return access(p).then(
    () => true,
    () => false,
  );
}

describe('reads (fs.read, fs.list, fs.glob) stay inside fs_read', () => {
  it.each([
    [
      '`..` traversal',
      '../secret/key.txt',
      (b: string) => `${b}/secret/key.txt is outside fs_read`,
    ],
    [
      '`..` inside an allowed path',
      'src/../../secret/key.txt',
      (b: string) => `${b}/secret/key.txt is outside fs_read`,
    ],
    [
      'a sibling sharing the prefix',
      '../ws-secret/key.txt',
      (b: string) => `${b}/ws-secret/key.txt is outside fs_read`,
    ],
    ['an absolute path', '/etc/hostname', () => '/etc/hostname is outside fs_read'],
  ])('fs.read refuses %s, naming the path and the axis', async (_what, target, expected) => {
    const out = await host().call('fs.read', { path: target });
    expect(out.isError).toBe(true);
    expect(out.content).toBe(`\`fs.read\` refused: ${expected(base)} (allowed: ${ws})`);
  });

  it('refuses a read through a symlinked directory that leads out', async () => {
    const out = await host().call('fs.read', { path: 'link-out/key.txt' });
    expect(out).toMatchObject({
      content: `\`fs.read\` refused: ${ws}/link-out/key.txt resolves through a symlink to ${base}/secret/key.txt, outside fs_read (allowed: ${ws})`,
      isError: true,
    });
  });

  it('refuses a read through a symlinked file that leads out', async () => {
    const out = await host().call('fs.read', { path: 'key-link.txt' });
    expect(out.isError).toBe(true);
    expect(out.content).toMatch(
      /key-link\.txt resolves through a symlink to .*\/secret\/key\.txt, outside fs_read/,
    );
  });

  it.each([
    ['a symlink loop', 'loop-a', (w: string) => `${w}/loop-a is part of a symlink loop`],
    ['a NUL byte', 'src/a.ts\0.png', () => 'the path contains a NUL byte'],
  ])('refuses %s', async (_what, target, expected) => {
    for (const tool of ['fs.read', 'fs.write']) {
      const args = tool === 'fs.write' ? { path: target, content: 'x' } : { path: target };
      const out = await host().call(tool, args);
      expect(out).toMatchObject({ content: `\`${tool}\` refused: ${expected(ws)}`, isError: true });
    }
  });

  it('follows a symlink that stays inside', async () => {
    const out = await host().call('fs.read', { path: 'inner/a.ts' });
    expect(out).toMatchObject({ content: 'export const a = 1;', isError: false });
  });

  it('fs.list refuses a symlinked directory that leads out, and lists what is inside', async () => {
    const refused = await host().call('fs.list', { path: 'link-out' });
    expect(refused.isError).toBe(true);
    expect(refused.content).toMatch(/resolves through a symlink .* outside fs_read/);
    const sibling = await host().call('fs.list', { path: '../ws-secret' });
    expect(sibling.content).toMatch(/ws-secret is outside fs_read/);
  });

  it('fs.glob never lists a file outside fs_read, even through a symlink', async () => {
    const all = await host().call('fs.glob', { pattern: '**/*' });
    expect(all.isError).toBe(false);
    expect(String(all.content).split('\n')).toEqual(['docs/readme.md', 'src/a.ts']);
    const out = await host().call('fs.glob', { pattern: '../*/key.txt' });
    expect(out.content).toBe('No readable files match `../*/key.txt`.');
    const escape = await host().call('fs.glob', { pattern: '*', path: '../secret' });
    expect(escape.content).toMatch(/refused: .*\/secret is outside fs_read/);
  });

  it('fs.glob filters matches by a narrower fs_read', async () => {
    const narrow = builtinHost({ caveats: caveats({ fs_read: [`${ws}/docs`] }), cwd: ws });
    // The base `.` itself is outside fs_read: searching from it is refused outright.
    expect((await narrow.call('fs.glob', { pattern: '**/*' })).content).toMatch(/outside fs_read/);
    const out = await narrow.call('fs.glob', { pattern: '*', path: 'docs' });
    expect(out.content).toBe('docs/readme.md');
  });
});

describe('writes (fs.write, fs.edit) stay inside fs_write', () => {
  it.each([
    ['`..` traversal', '../secret/new.txt', 'secret/new.txt'],
    ['a sibling sharing the prefix', '../ws-secret/new.txt', 'ws-secret/new.txt'],
  ])('fs.write refuses %s and creates nothing', async (_what, target, created) => {
    const out = await host().call('fs.write', { path: target, content: 'x' });
    expect(out).toMatchObject({
      content: `\`fs.write\` refused: ${base}/${created} is outside fs_write (allowed: ${ws})`,
      isError: true,
    });
    expect(await exists(path.join(base, created))).toBe(false);
  });

  it('refuses an absolute path outside, in the documented words', async () => {
    const out = await host().call('fs.write', { path: '/etc/passwd', content: 'x' });
    expect(out.content).toBe(
      `\`fs.write\` refused: /etc/passwd is outside fs_write (allowed: ${ws})`,
    );
  });

  it('refuses creating a file through a symlinked directory that leads out', async () => {
    const out = await host().call('fs.write', { path: 'link-out/planted.txt', content: 'x' });
    expect(out.isError).toBe(true);
    expect(out.content).toMatch(
      /resolves through a symlink to .*\/secret\/planted\.txt, outside fs_write/,
    );
    expect(await exists(path.join(base, 'secret/planted.txt'))).toBe(false);
  });

  it('refuses overwriting through a symlinked file that leads out', async () => {
    const out = await host().call('fs.write', { path: 'key-link.txt', content: 'pwned' });
    expect(out.isError).toBe(true);
    expect(await readFile(path.join(base, 'secret/key.txt'), 'utf8')).toBe('outside secret\n');
  });

  it('refuses writing through a dangling symlink that leads out', async () => {
    const out = await host().call('fs.write', { path: 'dangling', content: 'x' });
    expect(out.content).toMatch(/dangling resolves through a symlink to .*\/secret\/new\.txt/);
    expect(await exists(path.join(base, 'secret/new.txt'))).toBe(false);
  });

  it('refuses an edit through a symlinked file that leads out', async () => {
    const out = await host().call('fs.edit', {
      path: 'key-link.txt',
      old_string: 'outside',
      new_string: 'edited',
    });
    expect(out.isError).toBe(true);
    expect(await readFile(path.join(base, 'secret/key.txt'), 'utf8')).toBe('outside secret\n');
  });

  it('refuses a write when fs_read allows the path but fs_write does not', async () => {
    const readOnly = builtinHost({
      caveats: caveats({ fs_read: [ws], fs_write: [`${ws}/docs`] }),
      cwd: ws,
    });
    const out = await readOnly.call('fs.write', { path: 'src/a.ts', content: 'x' });
    expect(out.content).toBe(
      `\`fs.write\` refused: ${ws}/src/a.ts is outside fs_write (allowed: ${ws}/docs)`,
    );
  });
});

describe('the write lane narrows fs_write (worktree ∩ fs_write ∩ lane)', () => {
  const laned = (lane: string[]) =>
    builtinHost({
      caveats: withWriteLane(caveats({ fs_write: [ws] }), lane, { cwd: ws }),
      cwd: ws,
    });

  it.each([
    [['./src/', 'docs/readme.md'], 'src/new.ts', true],
    [['./src/', 'docs/readme.md'], 'src/deep/er/new.ts', true],
    [['./src/', 'docs/readme.md'], 'docs/readme.md', true],
    [['./src/', 'docs/readme.md'], './docs/readme.md', true],
    [['./src/', 'docs/readme.md'], 'docs/other.md', false],
    [['./src/', 'docs/readme.md'], 'srcx/new.ts', false],
    [['./src/', 'docs/readme.md'], 'README.md', false],
    [['src'], 'src/lane-dir.ts', true],
    [['docs/readme.md/'], 'docs/readme.md', true],
  ])('lane %j: writing %s allowed=%s', async (lane, target, allowed) => {
    const out = await laned(lane).call('fs.write', { path: target, content: 'lane\n' });
    expect(out.isError, String(out.content)).toBe(!allowed);
    if (!allowed) {
      expect(out.content).toMatch(
        new RegExp(
          `^\`fs.write\` refused: ${path.join(ws, target)} is outside fs_write \\(allowed: `,
        ),
      );
      expect(await exists(path.join(ws, target))).toBe(false);
    }
  });

  it('refuses a write through a symlink from inside the lane to outside it', async () => {
    const out = await laned(['src/']).call('fs.write', { path: 'src/to-docs/x.md', content: 'x' });
    expect(out.isError).toBe(true);
    expect(out.content).toMatch(/resolves through a symlink to .*\/docs\/x\.md, outside fs_write/);
    expect(await exists(path.join(ws, 'docs/x.md'))).toBe(false);
  });

  it('a degenerate lane entry fences nothing, and reads are never laned', async () => {
    expect((await laned(['.']).call('fs.write', { path: 'free.txt', content: 'x' })).isError).toBe(
      false,
    );
    expect((await laned(['src/']).call('fs.read', { path: 'docs/readme.md' })).isError).toBe(false);
  });

  it('fs.edit obeys the lane too', async () => {
    const out = await laned(['src/']).call('fs.edit', {
      path: 'docs/readme.md',
      old_string: 'readme',
      new_string: 'edited',
    });
    expect(out.content).toMatch(/^`fs.edit` refused: .*docs\/readme\.md is outside fs_write/);
  });
});

describe('tools offered follow the grant', () => {
  it.each([
    [{ fs_read: [], fs_write: [], exec: [] }, []],
    [{ fs_read: ['/x'], fs_write: [], exec: [] }, ['fs.read', 'fs.list', 'fs.glob']],
    [{ fs_read: [], fs_write: ['/x'], exec: ['make'] }, ['fs.write', 'fs.edit', 'exec']],
  ] as const)('grant %j offers %j', (grant, names) => {
    const { registry } = builtinHost({
      caveats: caveats({
        fs_read: [...grant.fs_read],
        fs_write: [...grant.fs_write],
        exec: [...grant.exec],
      }),
      cwd: '/x',
    });
    expect(registry.definitions().map((d) => d.name)).toEqual(names);
  });

  it('refuses a relative cwd before anything runs', () => {
    expect(() => builtinHost({ caveats: caveats({}), cwd: 'ws' })).toThrow(
      /absolute path, got `ws`/,
    );
  });
});
