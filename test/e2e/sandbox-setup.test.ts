import { describe, expect, it } from 'vitest';
import { runArbor } from '../helpers/run-arbor.js';
import { describeWithSandbox } from '../helpers/sandbox.js';
import { scriptedRun, workspace } from '../helpers/scripted-run.js';

const MISSING = { ARBOR_BWRAP: '/nonexistent/bwrap' };
const echo = [{ tool_calls: [{ name: 'exec', args: { command: 'echo ran' } }] }, { text: 'done' }];

describe('where bubblewrap is missing', () => {
  it('says so on stderr when the run starts, and refuses a narrowed agent its commands', async () => {
    const { ws } = await workspace();
    const run = await scriptedRun({ cwd: ws, env: MISSING, script: echo });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(
      'arbor: warning: the exec sandbox is unavailable (bubblewrap at /nonexistent/bwrap is missing or not executable); exec and verify commands will be refused',
    );
    expect(run.stderr).toContain('apt-get install bubblewrap');
    expect(run.results[0]).toMatch(
      /^`exec` refused: the exec sandbox is unavailable \(bubblewrap at \/nonexistent\/bwrap is missing or not executable\), and without it a command may run only for an agent whose fs_read, fs_write and net are all `all`/,
    );
  });

  it('runs commands for an agent whose every axis is unrestricted', async () => {
    const { ws } = await workspace();
    const run = await scriptedRun({
      cwd: ws,
      env: MISSING,
      args: ['--fs-read', 'all', '--fs-write', 'all', '--net', 'all'],
      script: echo,
    });
    expect(run.results[0]).toMatch(/^exit code 0 .*\nran$/s);
  });

  it('refuses to start under --sandbox required, before any model call', async () => {
    const { ws } = await workspace();
    const run = await scriptedRun({
      cwd: ws,
      env: MISSING,
      args: ['--sandbox', 'required'],
      script: echo,
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      'arbor: --sandbox required, but bubblewrap at /nonexistent/bwrap is missing or not executable',
    );
    expect(run.bodies).toHaveLength(0);
  });

  it('runs commands unsandboxed under --sandbox off, and says so', async () => {
    const { ws } = await workspace();
    const run = await scriptedRun({
      cwd: ws,
      env: MISSING,
      args: ['--sandbox', 'off'],
      script: echo,
    });
    expect(run.stderr).toContain('arbor: the exec sandbox is off (--sandbox off)');
    expect(run.results[0]).toMatch(/^exit code 0 .*\nran$/s);
  });

  it('names a bad --sandbox or --net value', async () => {
    const { ws } = await workspace();
    const sandbox = await runArbor(['run', '--mock-llm', 'x.json', '--sandbox', 'maybe', 'x'], {
      cwd: ws,
    });
    expect(sandbox.code).toBe(2);
    expect(sandbox.stderr).toContain(
      'Expected `--sandbox` to be `auto`, `required` or `off`, got `maybe`.',
    );
    const net = await runArbor(
      ['run', '--mock-llm', 'x.json', '--net', 'https://example.com', 'x'],
      { cwd: ws },
    );
    expect(net.code).toBe(2);
    expect(net.stderr).toContain(
      '--net: `https://example.com`: expected a host name, not a URL or a path',
    );
  });

  it('arbor doctor exits 1 naming the missing sandbox and how to get it', async () => {
    const doctor = await runArbor(['doctor'], { env: MISSING });
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toMatch(
      /^sandbox +missing +bubblewrap at \/nonexistent\/bwrap is missing/m,
    );
    expect(doctor.stdout).toMatch(/^node +ok +v\d+/m);
    expect(doctor.stdout).toMatch(/^sqlite +ok +SQLite 3\./m);
    expect(doctor.stdout).toMatch(/^mcp sdk +ok/m);
  });

  it('arbor doctor names a store path that cannot be written', async () => {
    const doctor = await runArbor(['doctor', '--db', '/proc/nope/x.db', '--json']);
    expect(doctor.code).toBe(1);
    const { checks } = JSON.parse(doctor.stdout) as {
      checks: { name: string; status: string; detail: string }[];
    };
    expect(checks.find((c) => c.name === 'store')).toEqual({
      name: 'store',
      status: 'missing',
      detail: '/proc/nope/x.db is under /proc, a virtual filesystem',
    });
  });
});

describeWithSandbox('where bubblewrap works', () => {
  it('arbor doctor exits 0 with every line ok', async () => {
    const doctor = await runArbor(['doctor']);
    expect(doctor.code, doctor.stdout).toBe(0);
    expect(doctor.stdout).toMatch(/^sandbox +ok +bubblewrap at .* can create a sandbox here$/m);
  });
});
