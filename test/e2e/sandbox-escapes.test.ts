import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { openSqlDatabase } from '../../src/store/index.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithSandbox } from '../helpers/sandbox.js';
import { fakeLlm } from '../helpers/fake-llm.js';
import { runArbor } from '../helpers/run-arbor.js';
import { RUN_KEY, rounds, scriptedRun, workspace } from '../helpers/scripted-run.js';

/** One exec call per command, all in one step, then an answer. */
function execAll(...commands: string[]): Record<string, unknown>[] {
  return [
    { tool_calls: commands.map((command) => ({ name: 'exec', args: { command } })) },
    { text: 'done' },
  ];
}

let server: Server;
let port: number;
let hits = 0;

beforeAll(async () => {
  server = createServer((_req, res) => {
    hits += 1;
    res.end('reached');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describeWithSandbox('escapes from the exec sandbox, through arbor run (default grant)', () => {
  it('shows no other process and no environment with keys in /proc', async () => {
    const { ws } = await workspace();
    const run = await scriptedRun({
      cwd: ws,
      script: execAll(
        "cat /proc/[0-9]*/environ | tr '\\0' '\\n'",
        'ls /proc | grep -c "^[0-9]"',
        'env',
      ),
    });
    expect(run.code, run.stderr).toBe(0);
    const [environ, count, env] = run.results;
    expect(environ).not.toContain(RUN_KEY);
    expect(env).not.toContain(RUN_KEY);
    expect(Number(count?.split('\n')[1])).toBeLessThan(8);
    for (const body of run.bodies) expect(JSON.stringify(body)).not.toContain(RUN_KEY);
  });

  it('cannot read or write outside the grant: cat, touch, `..`, symlinks, /proc/self/root', async () => {
    const { ws, outside } = await workspace();
    symlinkSync(path.join(outside, 'secret.txt'), path.join(ws, 'link.txt'));
    const run = await scriptedRun({
      cwd: ws,
      script: execAll(
        `cat ${outside}/secret.txt`,
        `touch ${outside}/pwned`,
        'cat ../outside/secret.txt',
        'cat link.txt',
        `cat /proc/self/root${outside}/secret.txt`,
        `cp link.txt stolen.txt; cat stolen.txt`,
      ),
    });
    expect(run.code, run.stderr).toBe(0);
    for (const result of run.results) expect(result).not.toContain('TOP-SECRET-OUTSIDE');
    expect(existsSync(path.join(outside, 'pwned'))).toBe(false);
  });

  it('cannot reach outside through a link a parent planted and granted to a child', async () => {
    const { ws, outside } = await workspace();
    const llm = await fakeLlm({
      scripts: [
        {
          match: { contains: 'Child: use out' },
          steps: rounds(
            {
              tool_calls: [
                { name: 'fs.write', args: { path: 'out/planted.txt', content: 'x' } },
                { name: 'fs.read', args: { path: 'out/secret.txt' } },
                { name: 'exec', args: { command: 'cat out/secret.txt; touch out/pwned' } },
              ],
            },
            { text: 'child done' },
          ),
        },
        {
          steps: rounds(
            {
              tool_calls: [
                { name: 'exec', args: { command: 'ln -s ../outside out && ln -s / root' } },
              ],
            },
            {
              tool_calls: [
                {
                  name: 'subagent.run',
                  args: {
                    instruction: 'Child: use out',
                    caveats: { fs_read: ['out', 'root'], fs_write: ['out'] },
                  },
                },
              ],
            },
            { text: 'parent done' },
          ),
        },
      ],
    });
    const run = await runArbor(['run', '--intel', llm.url, '--model', 'm', 'Parent.'], {
      cwd: ws,
      env: { ARBOR_DB: '' },
    });
    expect(run.code, run.stderr).toBe(0);
    const child = llm.requests
      .map((r) => r.body as { messages: { role: string; content: unknown }[] })
      .filter((b) => b.messages.some((m) => m.role === 'user' && m.content === 'Child: use out'))
      .map((b) => JSON.stringify(b))
      .at(-1);
    expect(child).toContain('outside fs_write');
    expect(child).toContain('not mounted:');
    expect(child).not.toContain('TOP-SECRET-OUTSIDE');
    expect(existsSync(path.join(outside, 'planted.txt'))).toBe(false);
    expect(existsSync(path.join(outside, 'pwned'))).toBe(false);
  });

  it('has no network under net = "none": a loopback server is never reached', async () => {
    const { ws } = await workspace();
    hits = 0;
    const run = await scriptedRun({
      cwd: ws,
      args: ['--net', 'none'],
      script: execAll(
        `curl -s -m 2 http://127.0.0.1:${port}/ || echo curl-failed`,
        `${process.execPath} -e "fetch('http://127.0.0.1:${port}/').then(r => r.text()).then(console.log, e => console.log('fetch-failed', e.cause?.code))"`,
      ),
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.results.join('\n')).not.toContain('reached');
    expect(hits).toBe(0);
  });

  it('cannot touch the store under the default grant, with fs.write or with exec', async () => {
    const { ws } = await workspace();
    const first = await scriptedRun({ cwd: ws, script: [{ text: 'first run' }] });
    expect(first.code, first.stderr).toBe(0);
    const db = path.join(ws, '.arbor', 'arbor.db');
    const attack = await scriptedRun({
      cwd: ws,
      script: [
        {
          tool_calls: [
            { name: 'fs.write', args: { path: '.arbor/arbor.db', content: 'garbage' } },
            { name: 'fs.write', args: { path: '.arbor/arbor.db-journal', content: 'garbage' } },
            { name: 'fs.read', args: { path: '.arbor/arbor.db' } },
            {
              name: 'exec',
              args: { command: 'echo garbage > .arbor/arbor.db; rm -rf .arbor/*; ls -la .arbor' },
            },
            { name: 'exec', args: { command: 'mv .arbor .gone || echo cannot-move' } },
            {
              name: 'exec',
              args: { command: 'echo garbage > .arbor/arbor.db-wal || echo cannot-write' },
            },
          ],
        },
        { text: 'done' },
      ],
    });
    expect(attack.code, attack.stderr).toBe(0);
    const [write, journal, read] = attack.results;
    expect(write).toMatch(
      /^`fs.write` refused: .*\.arbor\/arbor\.db is part of this run's own state/,
    );
    expect(journal).toMatch(
      /^`fs.write` refused: .*arbor\.db-journal is part of this run's own state/,
    );
    expect(read).toMatch(/^`fs.read` refused: .*arbor\.db is part of this run's own state/);
    expect(attack.results[4]).toContain('cannot-move');
    // Every record is still there, and the next run works.
    const store = openSqlDatabase(db);
    const runs = store.prepare('select count(*) as n from runs').get() as { n: number };
    store.close();
    expect(runs.n).toBe(2);
    const after = await scriptedRun({ cwd: ws, script: [{ text: 'still works' }] });
    expect(after.code, after.stderr).toBe(0);
    expect(after.stdout).toBe('still works\n');
  });

  it('protects a store kept in the working directory itself, file by file', async () => {
    const { ws } = await workspace({ 'notes.md': 'mine' });
    const run = await scriptedRun({
      cwd: ws,
      args: ['--db', 'runs.db'],
      script: execAll(
        'echo x > runs.db || echo refused-db',
        'echo x > runs.db-journal || echo refused-journal',
        'echo ok > notes.md && cat notes.md',
      ),
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.results[0]).toContain('refused-db');
    expect(run.results[1]).toContain('refused-journal');
    expect(run.results[2]).toContain('ok');
    expect(readFileSync(path.join(ws, 'notes.md'), 'utf8')).toBe('ok\n');
  });

  it('runs node, npm test and git status under the default grant', async () => {
    const { ws } = await workspace({
      'package.json': JSON.stringify({
        name: 'w',
        version: '1.0.0',
        scripts: { test: 'node -e "console.log(6*7)"' },
      }),
    });
    execFileSync('git', ['init', '-q'], { cwd: ws });
    writeFileSync(path.join(ws, 'a.txt'), 'a');
    const run = await scriptedRun({
      cwd: ws,
      script: execAll(
        `${process.execPath} -e "console.log('node ok')"`,
        'npm test',
        'git status --short',
      ),
    });
    expect(run.code, run.stderr).toBe(0);
    const [node, npm, git] = run.results;
    expect(node).toMatch(/^exit code 0 .*\nnode ok$/s);
    expect(npm).toMatch(/^exit code 0/);
    expect(npm).toContain('42');
    expect(git).toMatch(/^exit code 0/);
    expect(git).toContain('?? a.txt');
  });
});
