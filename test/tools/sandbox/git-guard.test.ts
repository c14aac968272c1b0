import { describe, expect, it } from 'vitest';
import type { Scope } from '../../../src/protocol/index.js';
import {
  planMounts,
  prepareCommand,
  type FsView,
  type MountPlan,
} from '../../../src/tools/index.js';
import { fakeFs } from '../../helpers/fake-fs.js';
import { stateAt } from '../../helpers/mount-state.js';

const REPO = '/w/repo';
const GIT = `${REPO}/.git`;

/** A repository with a submodule, a user's linked worktree, and arbor's plan worktree of a leaf. */
const MACHINE: Record<string, 'dir' | 'file'> = {
  '/usr/bin/git': 'file',
  [`${REPO}/src/main.ts`]: 'file',
  [`${GIT}/HEAD`]: 'file',
  [`${GIT}/config`]: 'file',
  [`${GIT}/index`]: 'file',
  [`${GIT}/objects/ab/cdef`]: 'file',
  [`${GIT}/hooks/pre-commit.sample`]: 'file',
  [`${GIT}/info/exclude`]: 'file',
  [`${GIT}/modules/lib/HEAD`]: 'file',
  [`${GIT}/modules/lib/config`]: 'file',
  [`${GIT}/modules/lib/hooks`]: 'dir',
  [`${GIT}/modules/lib/info`]: 'dir',
  [`${GIT}/worktrees/side/HEAD`]: 'file',
  [`${GIT}/worktrees/side/gitdir`]: 'file',
  [`${GIT}/worktrees/leaf/HEAD`]: 'file',
  [`${GIT}/worktrees/leaf/index`]: 'file',
  [`${GIT}/worktrees/leaf/gitdir`]: 'file',
  [`${GIT}/arbor/worktrees/run/leaf/src/main.ts`]: 'file',
  '/w/other/two/deep/.git/config': 'file',
  '/w/other/one/.git/config': 'file',
};
const TEXTS: Record<string, string> = {
  [`${GIT}/worktrees/side/commondir`]: '../..\n',
  [`${GIT}/worktrees/leaf/commondir`]: '../..\n',
  [`${GIT}/arbor/worktrees/run/leaf/.git`]: `gitdir: ${GIT}/worktrees/leaf\n`,
  '/w/side/.git': `gitdir: ${GIT}/worktrees/side\n`,
};
const FS = fakeFs(MACHINE, {}, TEXTS);

function plan(fsWrite: Scope, cwd = REPO, fs: FsView = FS): MountPlan {
  return planMounts(
    {
      caveats: { fs_read: ['/w'], fs_write: fsWrite, net: [] },
      cwd,
      protect: [],
      pathEntries: ['/usr/bin'],
      home: undefined,
    },
    fs,
  );
}

const writable = (p: MountPlan, q: string): boolean => {
  const state = stateAt(p.mounts, q);
  return state.kind === 'host' && state.rw;
};

describe('planMounts: git directories a command could write', () => {
  const repo = plan([REPO]);

  it.each([
    `${GIT}/config`,
    `${GIT}/hooks/pre-commit`,
    `${GIT}/info/attributes`,
    `${GIT}/worktrees/side/commondir`,
    `${GIT}/worktrees/leaf/HEAD`,
    `${GIT}/modules/lib/config`,
    `${GIT}/modules/lib/hooks/post-checkout`,
  ])('keeps %s read-only', (q) => {
    expect(stateAt(repo.mounts, q)).toMatchObject({ kind: 'host', rw: false });
  });

  it.each([
    `${REPO}/src/main.ts`,
    `${GIT}/index`,
    `${GIT}/HEAD`,
    `${GIT}/objects/ab/cdef`,
    `${GIT}/COMMIT_EDITMSG`,
    // arbor's own plan worktrees: a leaf's commands must write there.
    `${GIT}/arbor/worktrees/run/leaf/src/main.ts`,
  ])('leaves %s writable: commands still commit', (q) => {
    expect(writable(repo, q)).toBe(true);
  });

  it('pins .git where it is, before the read-only parts go over it', () => {
    const pin = repo.mounts.findIndex((m) => m.op === 'bind' && m.dest === GIT);
    const config = repo.mounts.findIndex((m) => m.op === 'ro-bind' && m.dest === `${GIT}/config`);
    expect(repo.mounts[pin]).toEqual({ op: 'bind', src: GIT, dest: GIT, why: 'pin' });
    expect(pin).toBeLessThan(config);
  });

  it('watches the main and submodule git directories for a planted commondir', () => {
    expect(repo.gitDirs).toEqual([GIT, `${GIT}/modules/lib`]);
  });

  it('makes missing hooks and info directories empty first, so they cannot be created', () => {
    const bare = fakeFs({ [`${GIT}/HEAD`]: 'file', [`${GIT}/config`]: 'file' });
    const p = plan([REPO], REPO, bare);
    expect(p.placeholders).toEqual([
      { path: `${GIT}/hooks`, kind: 'dir' },
      { path: `${GIT}/info`, kind: 'dir' },
    ]);
    expect(stateAt(p.mounts, `${GIT}/hooks/pre-commit`)).toMatchObject({ rw: false });
  });

  it('keeps config.worktree read-only where the config turns it on, even before it exists', () => {
    const fs = fakeFs(
      { [`${GIT}/HEAD`]: 'file' },
      {},
      {
        [`${GIT}/config`]: '[extensions]\n\tworktreeConfig = true\n',
      },
    );
    const p = plan([REPO], REPO, fs);
    expect(p.placeholders).toContainEqual({ path: `${GIT}/config.worktree`, kind: 'file' });
    expect(plan([REPO]).placeholders).not.toContainEqual(
      expect.objectContaining({ path: `${GIT}/config.worktree` }),
    );
  });

  it('keeps an existing commondir read-only instead of watching for one', () => {
    const fs = fakeFs({ [`${GIT}/HEAD`]: 'file' }, {}, { [`${GIT}/commondir`]: '.' });
    const p = plan([REPO], REPO, fs);
    expect(stateAt(p.mounts, `${GIT}/commondir`)).toMatchObject({ rw: false });
    expect(p.gitDirs).toEqual([]);
  });

  it('leaves a part fs_write names inside .git as the grant says, and only that part', () => {
    const hooks = plan([REPO, `${GIT}/hooks`]);
    expect(writable(hooks, `${GIT}/hooks/pre-commit`)).toBe(true);
    expect(writable(hooks, `${GIT}/config`)).toBe(false);
    const one = plan([REPO, `${GIT}/hooks/pre-commit.sample`]);
    expect(writable(one, `${GIT}/hooks/pre-commit.sample`)).toBe(true);
    expect(writable(one, `${GIT}/hooks/pre-commit`)).toBe(false);
    const whole = plan([REPO, GIT]);
    expect(writable(whole, `${GIT}/config`)).toBe(true);
  });

  it('adds nothing where the repository is only read', () => {
    const p = plan([`${REPO}/src`]);
    expect(p.mounts.filter((m) => m.why === 'protect' || m.why === 'pin')).toEqual([]);
    expect(p.gitDirs).toEqual([]);
  });

  it('under fs_write = "all", protects the repository holding the working directory', () => {
    const p = plan('all');
    expect(stateAt(p.mounts, `${GIT}/config`)).toMatchObject({ rw: false });
    // The directories above it are pinned too: `mv /w/repo elsewhere` would leave a new one.
    expect(p.mounts).toContainEqual({ op: 'bind', src: REPO, dest: REPO, why: 'pin' });
    expect(p.mounts).toContainEqual({ op: 'bind', src: '/w', dest: '/w', why: 'pin' });
  });

  it('looks one level below a writable root, not deeper', () => {
    const p = plan(['/w/other'], '/w/other');
    expect(stateAt(p.mounts, '/w/other/one/.git/config')).toMatchObject({ rw: false });
    expect(p.mounts).toContainEqual({
      op: 'bind',
      src: '/w/other/one',
      dest: '/w/other/one',
      why: 'pin',
    });
    // Documented limit: a repository two levels down is not looked for.
    expect(writable(p, '/w/other/two/deep/.git/config')).toBe(true);
  });

  it('keeps a .git file, and of the linked worktree it names only the pointers', () => {
    const leafDir = `${GIT}/arbor/worktrees/run/leaf`;
    const p = plan('all', leafDir);
    expect(stateAt(p.mounts, `${leafDir}/.git`)).toMatchObject({ rw: false });
    expect(stateAt(p.mounts, `${GIT}/worktrees/leaf/commondir`)).toMatchObject({ rw: false });
    expect(stateAt(p.mounts, `${GIT}/worktrees/leaf/gitdir`)).toMatchObject({ rw: false });
    expect(writable(p, `${GIT}/worktrees/leaf/index`)).toBe(true);
    expect(writable(p, `${GIT}/worktrees/side/HEAD`)).toBe(false);
    expect(writable(p, `${GIT}/config`)).toBe(false);
  });

  it('under a leaf grant of its worktree alone, keeps only its .git file', () => {
    const leafDir = `${GIT}/arbor/worktrees/run/leaf`;
    const p = plan([leafDir], leafDir);
    expect(p.mounts.filter((m) => m.why === 'protect')).toEqual([
      { op: 'ro-bind', src: `${leafDir}/.git`, dest: `${leafDir}/.git`, why: 'protect' },
    ]);
    expect(writable(p, `${leafDir}/src/main.ts`)).toBe(true);
  });

  it('cannot protect a launch path that is a symlink in a writable directory', () => {
    const fs = fakeFs(
      { [`${GIT}/HEAD`]: 'file', [`${GIT}/config`]: 'file', '/w/h': 'dir' },
      {
        [`${GIT}/hooks`]: '/w/h',
      },
    );
    expect(plan([REPO], REPO, fs).unprotectable).toEqual([`${GIT}/hooks`]);
    const linkedGit = fakeFs({ '/w/real/HEAD': 'file' }, { [GIT]: '/w/real' });
    expect(plan([REPO], REPO, linkedGit).unprotectable).toEqual([GIT]);
  });

  it('refuses the command then, saying what to do', () => {
    const fs = fakeFs({ [`${GIT}/HEAD`]: 'file', '/w/h': 'dir' }, { [`${GIT}/hooks`]: '/w/h' });
    const prepared = prepareCommand({
      settings: { mode: 'bwrap', bwrap: '/usr/bin/bwrap' },
      caveats: { fs_read: [REPO], fs_write: [REPO], net: [] },
      protect: [],
      cwd: REPO,
      env: { PATH: '/usr/bin' },
      fs,
    });
    expect(prepared).toEqual({
      ok: false,
      message: expect.stringMatching(
        /^the sandbox cannot keep \/w\/repo\/\.git\/hooks read-only: it is a symlink .* name it in fs_write explicitly$/,
      ) as string,
    });
  });
});
