import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { leafScript, planDir } from '../helpers/plan-run.js';
import { describeWithSandbox } from '../helpers/sandbox.js';
import { RUN_KEY, scriptedRun, workspace } from '../helpers/scripted-run.js';

/** git as the user runs it on the host: no sandbox, no arbor settings. */
function userGit(cwd: string, ...args: string[]): string {
  return execFileSync('/usr/bin/git', ['-c', 'user.name=u', '-c', 'user.email=u@x', ...args], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** A workspace that is a git repository with one commit, and a directory beside it for marks. */
async function repoWorkspace(): Promise<{ ws: string; outside: string }> {
  const { ws, outside } = await workspace({ 'README.md': 'base\n' });
  userGit(ws, 'init', '-q', '-b', 'main');
  writeFileSync(path.join(ws, '.gitignore'), '.arbor/\n');
  userGit(ws, 'add', '-A');
  userGit(ws, 'commit', '-q', '-m', 'base');
  return { ws, outside };
}

/** One exec call per model round, in order: each sees what the one before it left. */
function execEach(...commands: string[]): Record<string, unknown>[] {
  return [
    ...commands.map((command) => ({ tool_calls: [{ name: 'exec', args: { command } }] })),
    { text: 'done' },
  ];
}

/** A script that leaves `<outside>/<name>` when it runs, and passes its input through. */
const payload = (outside: string, name: string): string =>
  `printf '#!/bin/sh\\ntouch ${outside}/${name}\\ncat\\n'`;

describeWithSandbox('.git cannot be turned into a launcher (arbor run, default grant)', () => {
  it('keeps fsmonitor, hooks, filters, attributes and commondir from reaching the user’s git', async () => {
    const { ws, outside } = await repoWorkspace();
    const run = await scriptedRun({
      cwd: ws,
      script: execEach(
        `${payload(outside, 'fsmonitor-ran')} > evil.sh && chmod +x evil.sh && git config core.fsmonitor "$PWD/evil.sh"`,
        `${payload(outside, 'hook-ran')} > .git/hooks/post-commit; chmod +x .git/hooks/post-commit && cp .git/hooks/post-commit .git/hooks/pre-commit`,
        `git config filter.x.clean "$PWD/evil.sh"; echo '* filter=x' > .gitattributes && echo attributes-written`,
        `echo '* filter=x' > .git/info/attributes`,
        `git init -q --bare evil.git && git --git-dir=evil.git config core.fsmonitor "$PWD/evil.sh" && echo "$PWD/evil.git" > .git/commondir && echo planted`,
        `git add -A && git commit -q -m 'agent work' && git log -1 --format='%an <%ae>'`,
      ),
    });
    expect(run.code, run.stderr).toBe(0);
    const [fsmonitor, hook, filter, info, commondir, commit] = run.results;
    expect(fsmonitor).toMatch(/could not (lock|write) config file/);
    expect(hook).toMatch(/Read-only file system/);
    expect(filter).toMatch(/could not (lock|write) config file/);
    expect(filter).toContain('attributes-written');
    expect(info).toMatch(/Read-only file system/);
    expect(commondir).toMatch(/\[sandbox: removed .*\/\.git\/commondir, which the command created/);
    // Commands still commit, as arbor, without writing any config.
    expect(commit).toMatch(/^exit code 0[^]*arbor <arbor@localhost>$/);
    expect(userGit(ws, 'log', '-1', '--format=%s %an')).toBe('agent work arbor\n');

    expect(existsSync(path.join(ws, '.git', 'commondir'))).toBe(false);
    // The user's next git commands run nothing the agent planted.
    userGit(ws, 'status');
    writeFileSync(path.join(ws, 'user.txt'), 'by hand\n');
    userGit(ws, 'add', '-A');
    userGit(ws, 'commit', '-q', '-m', 'by the user');
    userGit(ws, 'diff', 'HEAD~1');
    expect(readdirSync(outside).filter((f) => f.endsWith('-ran'))).toEqual([]);
  });
  it('keeps .git, and a repository below the workspace, from being moved aside and replaced', async () => {
    const { ws, outside } = await repoWorkspace();
    const lib = path.join(ws, 'lib');
    userGit(ws, 'init', '-q', lib);
    const run = await scriptedRun({
      cwd: ws,
      script: execEach(
        `${payload(outside, 'fsmonitor-ran')} > evil.sh && chmod +x evil.sh`,
        'mv .git .git-aside && git init -q . && git config core.fsmonitor "$PWD/evil.sh" && echo replaced',
        'mv lib lib-aside && git init -q lib && git -C lib config core.fsmonitor "$PWD/evil.sh" && echo replaced',
      ),
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.results[1]).toMatch(/Device or resource busy/);
    expect(run.results[2]).toMatch(/Device or resource busy/);
    expect(statSync(path.join(ws, '.git')).isDirectory()).toBe(true);
    userGit(ws, 'status');
    userGit(lib, 'status');
    expect(readdirSync(outside).filter((f) => f.endsWith('-ran'))).toEqual([]);
  });

  it('disables a nested repository in the index that a command made a launcher', async () => {
    const { ws, outside } = await repoWorkspace();
    // The user's own nested repository, deeper than the mounts guard, tracked as a gitlink.
    const lib = path.join(ws, 'deep', 'er', 'lib');
    userGit(ws, 'init', '-q', lib);
    userGit(lib, 'commit', '-q', '--allow-empty', '-m', 'lib');
    userGit(ws, 'add', 'deep/er/lib');
    userGit(ws, 'commit', '-q', '-m', 'lib as a gitlink');
    const run = await scriptedRun({
      cwd: ws,
      script: execEach(
        `${payload(outside, 'fsmonitor-ran')} > evil.sh && chmod +x evil.sh && echo ready`,
        'git init -q sub && git -C sub config core.fsmonitor "$PWD/evil.sh" && git -C sub commit -q --allow-empty -m x && git add sub && echo nested',
        'git -C deep/er/lib config core.fsmonitor "$PWD/evil.sh" && echo changed',
      ),
    });
    expect(run.code, run.stderr).toBe(0);
    // The user's next git commands run nothing the agent planted.
    userGit(ws, 'status');
    userGit(ws, 'diff');
    expect(readdirSync(outside).filter((f) => f.endsWith('-ran'))).toEqual([]);
    const [ready, nested, changed] = run.results;
    // A command that leaves the nested repositories alone is told nothing.
    expect(ready).not.toContain('[sandbox:');
    expect(nested).toMatch(
      /\[sandbox: moved \S*\/sub\/\.git to \S*\/sub\/\.git\.disabled-by-arbor: a repository in the index/,
    );
    expect(changed).toMatch(/\[sandbox: moved \S*\/deep\/er\/lib\/\.git to /);
    expect(existsSync(path.join(ws, 'sub', '.git'))).toBe(false);
    expect(existsSync(path.join(lib, '.git'))).toBe(false);
  });
});

describeWithSandbox('.git cannot be turned into a launcher (plan run --worktrees)', () => {
  it("runs a filter a leaf configured only inside git's sandbox: no key, no host /proc, no writes out", async () => {
    const { ws: repo, outside } = await repoWorkspace();
    const git = path.join(repo, '.git');
    // What the filter reports ends up as the committed content of the leaf's file.
    const filter = [
      '#!/bin/sh',
      'cat >/dev/null',
      `touch ${outside}/filter-ran 2>/dev/null && echo wrote-outside || echo no-write-outside`,
      `echo "processes: $(ls /proc | grep -c '^[0-9]')"`,
      "cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n' | grep -i key",
      'env | grep -i key',
      'echo end-of-report',
      '',
    ].join('\n');
    const plan = await planDir(
      `[[subtask]]
id = "a"
instruction = "Task A: plant a filter"
caveat_policy = { fs_write = [".", "${git}"], exec = "all", max_calls = 5 }
`,
      {
        scripts: [
          leafScript(
            'Task A',
            { tool_calls: [{ name: 'fs.write', args: { path: 'f.sh', content: filter } }] },
            {
              tool_calls: [
                {
                  name: 'exec',
                  args: {
                    command: `git config filter.x.clean "sh $PWD/f.sh" && echo '* filter=x' > .gitattributes && echo data > data.txt && echo planted`,
                  },
                },
              ],
            },
            { text: 'A planted' },
          ),
        ],
      },
      repo,
    );
    const run = await plan.arbor('run', 'plan.toml', ['--worktrees'], {
      ARBOR_API_KEY: RUN_KEY,
      OPENAI_API_KEY: RUN_KEY,
    });
    expect(run.code, run.stderr).toBe(0);
    const commit = run.report?.leaves[0]?.artifact_ref?.commit;
    expect(commit).toBeDefined();
    // arbor's own `git add -A` ran the filter: its report is what was committed.
    const report = userGit(repo, 'show', `${commit!}:data.txt`);
    expect(report).toContain('end-of-report');
    expect(report).toContain('no-write-outside');
    expect(report).not.toContain(RUN_KEY);
    expect(Number(/processes: (\d+)/.exec(report)?.[1])).toBeLessThan(8);
    expect(existsSync(path.join(outside, 'filter-ran'))).toBe(false);
  });

  it('cannot plant the filter at all where the leaf does not name .git', async () => {
    const { ws: repo, outside } = await repoWorkspace();
    const plan = await planDir(
      `[[subtask]]
id = "a"
instruction = "Task A: plant a filter"
caveat_policy = { fs_write = "all", exec = "all", max_calls = 5 }
`,
      {
        scripts: [
          leafScript(
            'Task A',
            {
              tool_calls: [
                {
                  name: 'exec',
                  args: {
                    command: `${payload(outside, 'filter-ran')} > f.sh; git config filter.x.clean "sh $PWD/f.sh"; echo '* filter=x' > .gitattributes; echo data > data.txt`,
                  },
                },
              ],
            },
            { text: 'A planted' },
          ),
        ],
      },
      repo,
    );
    const run = await plan.arbor('run', 'plan.toml', ['--worktrees']);
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(path.join(repo, '.git', 'config'), 'utf8')).not.toContain('filter');
    userGit(repo, 'checkout', '-q', run.report!.merge!.branch);
    userGit(repo, 'status');
    expect(existsSync(path.join(outside, 'filter-ran'))).toBe(false);
  });

  it('refuses --worktrees with exit 2 where the sandbox is unavailable, unless it is off', async () => {
    const { ws: repo } = await repoWorkspace();
    const plan = await planDir(
      '[[subtask]]\nid = "a"\ninstruction = "Task A: nothing"\n',
      { scripts: [leafScript('Task A', { text: 'A done' }, { text: 'A done' })] },
      repo,
    );
    const missing = { ARBOR_BWRAP: path.join(repo, 'no-bwrap') };
    const refused = await plan.arbor('run', 'plan.toml', ['--worktrees'], missing);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--worktrees runs git .* only in a sandbox/);
    expect(plan.llm.requests).toHaveLength(0);
    const off = await plan.arbor('run', 'plan.toml', ['--worktrees', '--sandbox', 'off'], missing);
    expect(off.code, off.stderr).toBe(0);
  });
});
