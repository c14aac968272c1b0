import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sweepNestedRepos } from '../../../src/tools/sandbox/sweep-nested-repos.js';

const ID = ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'core.hooksPath=/dev/null'];

function git(cwd: string, ...args: string[]): void {
  execFileSync('/usr/bin/git', [...ID, ...args], {
    cwd,
    stdio: 'ignore',
    env: { PATH: '/usr/bin:/bin' },
  });
}

/**
 * A repository whose index holds `sub` as a gitlink, with `sub/.git` a `gitdir:` file naming
 * `.git/modules/sub`, as `git submodule` lays it out.
 */
function repoWithSubmodule(): { repo: string; modules: string } {
  const repo = mkdtempSync(path.join(tmpdir(), 'arbor-nested-'));
  git(repo, 'init', '-q');
  const sub = path.join(repo, 'sub');
  git(repo, 'init', '-q', 'sub');
  git(sub, 'commit', '-q', '--allow-empty', '-m', 's');
  git(repo, 'add', 'sub');
  const modules = path.join(repo, '.git', 'modules', 'sub');
  mkdirSync(path.dirname(modules), { recursive: true });
  renameSync(path.join(sub, '.git'), modules);
  writeFileSync(path.join(sub, '.git'), 'gitdir: ../.git/modules/sub\n');
  return { repo, modules };
}

describe('sweepNestedRepos', () => {
  it('leaves alone a nested repository nothing changed since the start', () => {
    const { repo } = repoWithSubmodule();
    expect(sweepNestedRepos([path.join(repo, '.git')], Date.now() + 60_000)).toEqual([]);
    expect(existsSync(path.join(repo, 'sub', '.git'))).toBe(true);
  });

  it('moves aside the .git file of a submodule whose git directory got a hook', () => {
    const { repo, modules } = repoWithSubmodule();
    const since = Date.now() - 60_000;
    writeFileSync(path.join(modules, 'hooks', 'post-checkout'), '#!/bin/sh\n');
    const out = sweepNestedRepos([path.join(repo, '.git')], since);
    expect(out).toEqual([
      expect.stringMatching(/^moved \S+\/sub\/\.git to \S+\.disabled-by-arbor:/),
    ]);
    expect(existsSync(path.join(repo, 'sub', '.git'))).toBe(false);
    expect(existsSync(path.join(repo, 'sub', '.git.disabled-by-arbor'))).toBe(true);
  });

  it('takes the work tree of a linked worktree from its gitdir pointer', () => {
    const { repo } = repoWithSubmodule();
    git(repo, 'commit', '-q', '-m', 'with sub');
    const tree = path.join(path.dirname(repo), `${path.basename(repo)}-wt`);
    git(repo, 'worktree', 'add', '-q', tree);
    const since = Date.now() - 60_000;
    mkdirSync(path.join(tree, 'sub'), { recursive: true });
    writeFileSync(path.join(tree, 'sub', '.git'), 'gitdir: ../../nowhere\n');
    const out = sweepNestedRepos(
      [path.join(repo, '.git', 'worktrees', path.basename(tree))],
      since,
    );
    expect(out).toEqual([expect.stringContaining(`moved ${tree}/sub/.git`)]);
  });
});
