import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinHost, caveats, makeTempDir } from '../../helpers/builtin-tools.js';

let ws: string;
let remove: () => Promise<void>;

beforeAll(async () => {
  ({ dir: ws, remove } = await makeTempDir('arbor-fs-'));
  await mkdir(path.join(ws, 'src/lib'), { recursive: true });
  await writeFile(path.join(ws, 'src/a.ts'), 'one\ntwo\nthree\nfour\nfive\n');
  await writeFile(path.join(ws, 'src/b.js'), 'b');
  await writeFile(path.join(ws, 'src/lib/c.ts'), 'c');
  await writeFile(path.join(ws, '.hidden.ts'), 'h');
  await writeFile(path.join(ws, 'empty.txt'), '');
  await writeFile(path.join(ws, 'blob.bin'), Buffer.from([0x7f, 0x45, 0x00, 0x01]));
  await writeFile(path.join(ws, 'long-line.txt'), 'x'.repeat(5000));
  await writeFile(path.join(ws, 'utf8.txt'), 'é'.repeat(100));
  await symlink('src', path.join(ws, 'src-link'));
});

afterAll(async () => {
  await remove();
});

const host = (limits = {}) =>
  builtinHost({ caveats: caveats({ fs_read: [ws], fs_write: [ws] }), cwd: ws, limits });

describe('fs.read', () => {
  it.each([
    [{}, 'one\ntwo\nthree\nfour\nfive'],
    [
      { offset: 2, limit: 2 },
      'two\nthree\n[showed lines 2-3; the file goes on: continue with offset=4]',
    ],
    [{ offset: 4 }, 'four\nfive'],
    [{ offset: 5, limit: 1 }, 'five'],
    [{ offset: 9 }, '[WS/src/a.ts has 5 lines; offset 9 is past the end]'],
  ])('reads %j as lines', async (window, expected) => {
    const out = await host().call('fs.read', { path: 'src/a.ts', ...window });
    expect(out).toMatchObject({ content: expected.replace('WS', ws), isError: false });
  });

  it('stops at the byte cap on a whole line and says where to continue', async () => {
    const out = await host({ readBytes: 10 }).call('fs.read', { path: 'src/a.ts' });
    expect(out.content).toBe(
      'one\ntwo\n[showed lines 1-2; the file goes on: continue with offset=3]',
    );
  });

  it('uses the default line limit when the call names none', async () => {
    const out = await host({ readLines: 3 }).call('fs.read', { path: 'src/a.ts' });
    expect(out.content).toMatch(/^one\ntwo\nthree\n\[showed lines 1-3; .*offset=4\]$/);
  });

  it('cuts a single line longer than the cap, without splitting a character', async () => {
    const long = await host({ readBytes: 1000 }).call('fs.read', { path: 'long-line.txt' });
    expect(long.content).toBe(
      `${'x'.repeat(1000)}\n[line 1 is longer than the read cap and was cut; continue with offset=2]`,
    );
    const utf8 = await host({ readBytes: 11 }).call('fs.read', { path: 'utf8.txt' });
    expect(String(utf8.content).split('\n')[0]).toBe('é'.repeat(5));
  });

  it.each([
    ['empty.txt', false, /is empty\]$/],
    ['blob.bin', true, /blob\.bin looks binary \(NUL bytes in its first 4 bytes; 4 bytes in all\)/],
    ['src', true, /src is a directory \(use `fs.list`\)\.$/],
    ['missing.txt', true, /missing\.txt does not exist\.$/],
  ])('%s: error=%s', async (file, isError, pattern) => {
    const out = await host().call('fs.read', { path: file });
    expect(out.isError).toBe(isError);
    expect(out.content).toMatch(pattern);
  });

  it('refuses bad arguments through the schema', async () => {
    const out = await host().call('fs.read', { path: 'src/a.ts', offset: 0 });
    expect(out).toMatchObject({
      content: 'Invalid arguments for `fs.read`: `offset`: expected >= 1, got 0.',
      isError: true,
    });
  });
});

describe('fs.write', () => {
  it('creates a file and its missing parents, then replaces it', async () => {
    const created = await host().call('fs.write', { path: 'out/deep/new.txt', content: 'héllo' });
    expect(created).toEqual({
      content: `Created ${ws}/out/deep/new.txt (6 bytes).`,
      isError: false,
    });
    const replaced = await host().call('fs.write', { path: 'out/deep/new.txt', content: 'bye' });
    expect(replaced.content).toBe(`Replaced ${ws}/out/deep/new.txt (3 bytes).`);
    expect(await readFile(path.join(ws, 'out/deep/new.txt'), 'utf8')).toBe('bye');
  });

  it('refuses to write over a directory', async () => {
    const out = await host().call('fs.write', { path: 'src', content: 'x' });
    expect(out).toMatchObject({
      content: `\`fs.write\`: ${ws}/src is a directory.`,
      isError: true,
    });
  });
});

describe('fs.edit', () => {
  const edit = async (content: string, args: Record<string, unknown>) => {
    await writeFile(path.join(ws, 'edit.txt'), content);
    const out = await host().call('fs.edit', { path: 'edit.txt', ...args });
    return { out, after: await readFile(path.join(ws, 'edit.txt'), 'utf8') };
  };

  it('replaces the one occurrence', async () => {
    const { out, after } = await edit('a = 1\nb = 2\n', {
      old_string: 'b = 2',
      new_string: 'b = 3',
    });
    expect(out).toMatchObject({
      content: `Replaced 1 occurrence in ${ws}/edit.txt.`,
      isError: false,
    });
    expect(after).toBe('a = 1\nb = 3\n');
  });

  it('keeps `$&` and `$1` in new_string literal', async () => {
    const { after } = await edit('price\n', { old_string: 'price', new_string: '$& = $1' });
    expect(after).toBe('$& = $1\n');
  });

  it('refuses old_string that is absent, leaving the file alone', async () => {
    const { out, after } = await edit('abc', { old_string: 'xyz', new_string: 'q' });
    expect(out).toMatchObject({
      content: `\`fs.edit\`: ${ws}/edit.txt does not contain old_string (it must match exactly, whitespace included).`,
      isError: true,
    });
    expect(after).toBe('abc');
  });

  it('refuses old_string that is not unique, naming the count', async () => {
    const { out, after } = await edit('x x x', { old_string: 'x', new_string: 'y' });
    expect(out.content).toBe(
      `\`fs.edit\`: ${ws}/edit.txt contains old_string 3 times; include more surrounding text to make it unique, or set replace_all to replace every occurrence.`,
    );
    expect(after).toBe('x x x');
  });

  it('replaces every occurrence with replace_all', async () => {
    const { out, after } = await edit('x x x', {
      old_string: 'x',
      new_string: 'y',
      replace_all: true,
    });
    expect(out.content).toBe(`Replaced 3 occurrences in ${ws}/edit.txt.`);
    expect(after).toBe('y y y');
  });

  it.each([
    [{ old_string: 'a', new_string: 'a' }, /old_string and new_string are the same/],
    [{ old_string: '', new_string: 'a' }, /`old_string`: expected at least 1 characters, got 0/],
  ])('refuses %j', async (args, pattern) => {
    const { out } = await edit('a', args);
    expect(out.isError).toBe(true);
    expect(out.content).toMatch(pattern);
  });

  it('refuses a missing file and a binary file', async () => {
    const missing = await host().call('fs.edit', {
      path: 'nope.txt',
      old_string: 'a',
      new_string: 'b',
    });
    expect(missing.content).toBe(`\`fs.edit\`: ${ws}/nope.txt does not exist.`);
    const binary = await host().call('fs.edit', {
      path: 'blob.bin',
      old_string: 'E',
      new_string: 'F',
    });
    expect(binary.content).toBe(`\`fs.edit\`: ${ws}/blob.bin is not UTF-8 text.`);
  });

  it('refuses a file over the edit limit', async () => {
    await writeFile(path.join(ws, 'big.txt'), 'a'.repeat(100));
    const out = await host({ editBytes: 50 }).call('fs.edit', {
      path: 'big.txt',
      old_string: 'a',
      new_string: 'b',
      replace_all: true,
    });
    expect(out.content).toMatch(/is 100 bytes, larger than the 50-byte edit limit/);
  });
});

describe('fs.list', () => {
  it('lists entries sorted, with type and size, and does not follow symlinks', async () => {
    const out = await host().call('fs.list', { path: 'src' });
    expect(out).toMatchObject({
      content: `${ws}/src: 3 entries\na.ts (file, 24 bytes)\nb.js (file, 1 bytes)\nlib/ (dir)`,
      isError: false,
    });
    const root = String((await host().call('fs.list', {})).content);
    expect(root).toContain('\nsrc-link (symlink)');
    expect(root).toContain('\nsrc/ (dir)');
  });

  it('caps the entries and says how many were left out', async () => {
    const out = await host({ listEntries: 1 }).call('fs.list', { path: 'src' });
    expect(out.content).toBe(
      `${ws}/src: 3 entries\na.ts (file, 24 bytes)\n[2 more entries not shown]`,
    );
  });

  it('refuses a file', async () => {
    const out = await host().call('fs.list', { path: 'src/a.ts' });
    expect(out.content).toBe(`\`fs.list\`: ${ws}/src/a.ts is not a directory (use \`fs.read\`).`);
  });
});

describe('fs.glob', () => {
  it.each([
    ['src/**/*.ts', undefined, 'src/a.ts\nsrc/lib/c.ts'],
    ['*.ts', 'src', 'src/a.ts'],
    ['**/*.{js,ts}', 'src', 'src/a.ts\nsrc/b.js\nsrc/lib/c.ts'],
    ['*.ts', undefined, 'No readable files match `*.ts`.'],
    ['.*.ts', undefined, '.hidden.ts'],
  ])('%s from %s', async (pattern, base, expected) => {
    const out = await host().call('fs.glob', {
      pattern,
      ...(base === undefined ? {} : { path: base }),
    });
    expect(out).toMatchObject({ content: expected, isError: false });
  });

  it('caps the results', async () => {
    const out = await host({ globResults: 1 }).call('fs.glob', { pattern: 'src/**/*' });
    expect(out.content).toBe('src/a.ts\n[2 more matches not shown; narrow the pattern]');
  });

  it('refuses an absolute pattern', async () => {
    const out = await host().call('fs.glob', { pattern: `${ws}/*.ts` });
    expect(out.content).toMatch(/expected a relative pattern, got .*; put the directory in `path`/);
  });
});
