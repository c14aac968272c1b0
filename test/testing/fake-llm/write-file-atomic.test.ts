import { link, mkdir, mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeFileAtomic } from '../../../src/testing/index.js';

describe('writeFileAtomic', () => {
  it('replaces the file by rename, never writing into the file a reader may hold', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'arbor-atomic-'));
    const file = join(dir, 'addr');
    await writeFile(file, 'old');
    // A second name for the old file: an in-place write would change what it shows.
    await link(file, join(dir, 'old-view'));
    await writeFileAtomic(file, 'http://127.0.0.1:4321');
    expect(await readFile(file, 'utf8')).toBe('http://127.0.0.1:4321');
    expect(await readFile(join(dir, 'old-view'), 'utf8')).toBe('old');
    expect((await readdir(dir)).sort()).toEqual(['addr', 'old-view']);
  });

  it('leaves no temporary file behind when it fails', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'arbor-atomic-'));
    // Renaming a file over a non-empty directory fails.
    const target = join(dir, 'taken');
    await mkdir(join(target, 'inside'), { recursive: true });
    await expect(writeFileAtomic(target, 'x')).rejects.toThrow();
    expect(await readdir(dir)).toEqual(['taken']);
  });
});
