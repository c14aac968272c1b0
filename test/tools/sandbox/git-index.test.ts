import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { gitlinksOf, parseGitlinks } from '../../../src/tools/sandbox/git-index.js';

const GIT = '/usr/bin/git';
const ID = ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'core.hooksPath=/dev/null'];

function git(cwd: string, ...args: string[]): void {
  execFileSync(GIT, [...ID, ...args], { cwd, stdio: 'ignore', env: { PATH: '/usr/bin:/bin' } });
}

/** A repository with two files and two nested repositories added to its index as gitlinks. */
function repoWithGitlinks(): string {
  const repo = mkdtempSync(path.join(tmpdir(), 'arbor-index-'));
  git(repo, 'init', '-q');
  for (const nested of ['a/sub', 'deep/er/nested-with-a-long-name']) {
    mkdirSync(path.join(repo, nested), { recursive: true });
    git(path.join(repo, nested), 'init', '-q');
    git(path.join(repo, nested), 'commit', '-q', '--allow-empty', '-m', 'n');
  }
  writeFileSync(path.join(repo, 'f.txt'), 'x');
  mkdirSync(path.join(repo, 'deep', 'er', 'z'), { recursive: true });
  writeFileSync(path.join(repo, 'deep', 'er', 'z', 'file'), 'y');
  git(repo, 'add', 'f.txt', 'a/sub', 'deep');
  return repo;
}

describe('gitlinksOf', () => {
  it.each([['2'], ['3'], ['4']])('finds the gitlinks of an index of version %s', (version) => {
    const repo = repoWithGitlinks();
    git(repo, 'update-index', '--index-version', version);
    expect(gitlinksOf(path.join(repo, '.git')).sort()).toEqual([
      'a/sub',
      'deep/er/nested-with-a-long-name',
    ]);
  });

  it('gives none for a missing or foreign index, and ignores a truncated one', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'arbor-index-'));
    expect(gitlinksOf(dir)).toEqual([]);
    expect(parseGitlinks(Buffer.from('not an index at all'))).toEqual([]);
    const head = Buffer.alloc(12);
    head.write('DIRC', 0, 'latin1');
    head.writeUInt32BE(2, 4);
    head.writeUInt32BE(5, 8);
    expect(parseGitlinks(head)).toEqual([]);
  });
});
