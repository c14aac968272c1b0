import { describe, expect, it } from 'vitest';
import { defaultRunGrant, withWriteLane, permitsPath } from '../../src/authority/index.js';

const cwd = '/work/repo';
const grant = defaultRunGrant(cwd);
const writes = (lane: string[], p: string): boolean =>
  permitsPath(withWriteLane(grant, lane, { cwd }).fs_write, p, { cwd });

describe('withWriteLane', () => {
  it('leaves fs_write alone when the lane is empty', () => {
    expect(withWriteLane(grant, [], { cwd })).toEqual(grant);
  });

  it('narrows fs_write to directory prefixes, with ./ and a trailing / making no difference', () => {
    for (const lane of [['src/'], ['./src'], ['src'], ['./src/']]) {
      expect(withWriteLane(grant, lane, { cwd }).fs_write).toEqual(['/work/repo/src']);
      expect(writes(lane, 'src/a.ts')).toBe(true);
      expect(writes(lane, 'src/deep/b.ts')).toBe(true);
      expect(writes(lane, 'srcx/a.ts')).toBe(false);
      expect(writes(lane, 'README.md')).toBe(false);
    }
  });

  it('matches an exact file and nothing beside it', () => {
    expect(writes(['docs/guide.md'], 'docs/guide.md')).toBe(true);
    expect(writes(['docs/guide.md'], 'docs/other.md')).toBe(false);
    expect(writes(['docs/guide.md'], 'docs/guide.md.bak')).toBe(false);
  });

  it('never widens fs_write: the lane meets the grant', () => {
    const narrow = { ...grant, fs_write: ['/work/repo/src'] };
    expect(withWriteLane(narrow, ['docs/'], { cwd }).fs_write).toEqual([]);
    expect(withWriteLane(narrow, ['src/a/'], { cwd }).fs_write).toEqual(['/work/repo/src/a']);
    expect(withWriteLane({ ...grant, fs_write: [] }, ['src/'], { cwd }).fs_write).toEqual([]);
  });

  it('grants nothing for entries that leave the working directory', () => {
    expect(withWriteLane(grant, ['../other'], { cwd }).fs_write).toEqual([]);
    expect(withWriteLane(grant, ['/etc'], { cwd }).fs_write).toEqual([]);
    expect(withWriteLane(grant, ['../x', 'src/'], { cwd }).fs_write).toEqual(['/work/repo/src']);
  });

  it('fences nothing when an entry is degenerate, as the file tools read a lane', () => {
    for (const entry of ['', '.', './', '  '])
      expect(withWriteLane(grant, [entry, 'src/'], { cwd })).toEqual(grant);
  });
});

describe('a lane entry names a file exactly or a directory and all under it', () => {
  it.each<[string[], string, boolean]>([
    [[], 'anything/at/all.ts', true],
    [['src/util.rs'], 'src/util.rs', true],
    [['src/util.rs'], 'src/util.rs.bak', false],
    [['src/util.rs'], 'src/util.r', false],
    [['src/util.rs'], 'src/other.rs', false],
    [['tests/'], 'tests/a.rs', true],
    [['tests/'], 'tests', true],
    [['tests/'], 'testsuite/a.rs', false],
    [['tests'], 'tests/deep/a.rs', true],
    [['./src/'], 'src/a.ts', true],
    [['src'], './src/a.ts', true],
    [['src'], 'src//a.ts', true],
    [['src'], 'src/../secret.ts', false],
    [['src'], '../outside.ts', false],
    [['src'], '/etc/passwd', false],
    [['src'], '.', false],
    [['src', 'docs/'], 'docs/a.md', true],
    // Degenerate entries fence nothing: bad lane data must never brick a leaf.
    [[''], 'anything.ts', true],
    [['.'], 'anything.ts', true],
    [['./'], 'anything.ts', true],
    [['  '], 'anything.ts', true],
    [['src', ''], 'docs/a.md', true],
  ])('lane %j, path `%s` → %s', (lane, relPath, expected) => {
    expect(writes(lane, relPath)).toBe(expected);
  });
});
