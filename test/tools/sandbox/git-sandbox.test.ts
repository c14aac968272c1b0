import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { builtinHost, caveats, makeTempDir } from '../../helpers/builtin-tools.js';
import { describeWithSandbox, SANDBOX } from '../../helpers/sandbox.js';
import type { Scope } from '../../../src/protocol/index.js';

let base: string;
let repo: string;
let mark: string;
let remove: () => Promise<void>;

/** git as the user runs it, outside any sandbox (its own identity, no arbor settings). */
function hostGit(cwd: string, ...args: string[]): string {
  return execFileSync('/usr/bin/git', ['-c', 'user.name=u', '-c', 'user.email=u@x', ...args], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

beforeEach(async () => {
  ({ dir: base, remove } = await makeTempDir('arbor-git-sandbox-'));
  repo = path.join(base, 'repo');
  mark = path.join(base, 'ran');
  mkdirSync(repo);
  hostGit(repo, 'init', '-q', '-b', 'main');
  writeFileSync(path.join(repo, 'README'), 'base\n');
  hostGit(repo, 'add', '-A');
  hostGit(repo, 'commit', '-q', '-m', 'base');
  writeFileSync(path.join(base, 'payload.sh'), `#!/bin/sh\necho "$0 $*" >> ${mark}\ncat\n`, {
    mode: 0o755,
  });
});

afterEach(async () => {
  await remove();
});

function exec(command: string, fsWrite: Scope = [repo], cwd = repo) {
  return builtinHost({
    caveats: caveats({ fs_read: [base], fs_write: fsWrite, exec: 'all', net: [] }),
    cwd,
    sandbox: SANDBOX,
  }).call('exec', { command });
}

describeWithSandbox('git directories in the exec sandbox', () => {
  // `PAYLOAD` and `MARK` stand for the script outside the grant and the file it would leave.
  it.each([
    ['core.fsmonitor', "git config core.fsmonitor 'PAYLOAD'"],
    ['a hook', "echo 'touch MARK' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit"],
    ['a filter', "git config filter.x.clean 'PAYLOAD'"],
    ['info/attributes', "echo '* filter=x' > .git/info/attributes"],
    ['a moved .git', 'mv .git .git2'],
    ['a removed hooks directory', 'rm -rf .git/hooks'],
  ])('keeps %s from being written, and says so', async (_what, command) => {
    const out = await exec(
      command.replace('PAYLOAD', path.join(base, 'payload.sh')).replace('MARK', mark),
    );
    expect(out.isError, String(out.content)).toBe(true);
    expect(String(out.content)).toMatch(
      /Read-only file system|Device or resource busy|could not lock/,
    );
    hostGit(repo, 'status');
    hostGit(repo, 'commit', '-q', '--allow-empty', '-m', 'by the user');
    expect(existsSync(mark)).toBe(false);
  });

  it('lets a command commit, as arbor, and write the working tree and index', async () => {
    const out = await exec(
      "echo '* filter=x' > .gitattributes && echo more >> README && git add -A && git commit -q -m 'from the sandbox' && git log -1 --format=%an/%ce",
    );
    expect(out.content).toMatch(/exit code 0[^]*arbor\/arbor@localhost/);
    expect(hostGit(repo, 'log', '-1', '--format=%s')).toBe('from the sandbox\n');
  });

  it('removes a commondir planted in the main git directory, and says so', async () => {
    const foreign = path.join(base, 'foreign.git');
    hostGit(base, 'init', '-q', '--bare', foreign);
    hostGit(foreign, 'config', 'core.fsmonitor', path.join(base, 'payload.sh'));
    const out = await exec(`echo '${foreign}' > .git/commondir`);
    expect(out.content).toMatch(
      /\[sandbox: removed .*\/\.git\/commondir, which the command created/,
    );
    expect(existsSync(path.join(repo, '.git', 'commondir'))).toBe(false);
    hostGit(repo, 'status');
    expect(existsSync(mark)).toBe(false);
  });

  it('protects a repository one level below a writable root', async () => {
    const out = await exec(
      `git -C repo config core.fsmonitor '${path.join(base, 'payload.sh')}'`,
      [base],
      base,
    );
    expect(out.isError).toBe(true);
    hostGit(repo, 'status');
    expect(existsSync(mark)).toBe(false);
  });

  it('keeps a .git file (a linked worktree) and the git directory it names', async () => {
    const linked = path.join(base, 'linked');
    hostGit(repo, 'worktree', 'add', '-q', linked);
    const out = await exec(
      `echo 'gitdir: ${base}/evil' > .git; git config core.fsmonitor ${path.join(base, 'payload.sh')}`,
      [base],
      linked,
    );
    expect(out.isError).toBe(true);
    expect(readFileSync(path.join(linked, '.git'), 'utf8')).toMatch(/worktrees\/linked/);
    hostGit(linked, 'status');
    expect(existsSync(mark)).toBe(false);
    // Its own index and HEAD stay writable: commands in it still commit.
    const commit = await exec(
      'echo x > new && git add new && git commit -q -m linked && echo ok',
      [base],
      linked,
    );
    expect(commit.content).toMatch(/exit code 0[^]*ok/);
  });

  it('leaves what fs_write names inside .git writable', async () => {
    const hooks = path.join(repo, '.git', 'hooks');
    const out = await exec(`echo '#!/bin/sh' > .git/hooks/pre-commit && echo ok`, [repo, hooks]);
    expect(out.content).toMatch(/exit code 0[^]*ok/);
    const config = await exec('git config x.y z', [repo, hooks]);
    expect(config.isError).toBe(true);
  });
});
