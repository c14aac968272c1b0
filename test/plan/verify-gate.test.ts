import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runVerifyGate } from '../../src/plan/index.js';
import { defaultRunGrant, runStatePaths } from '../../src/authority/index.js';
import type { SandboxSettings } from '../../src/protocol/index.js';
import { describeWithSandbox, SANDBOX } from '../helpers/sandbox.js';

async function gate(
  command: string,
  exec: 'all' | string[],
  timeoutMs = 10_000,
  sandbox: SandboxSettings = SANDBOX,
  setup: (cwd: string) => void = () => undefined,
) {
  const cwd = await mkdtemp(join(tmpdir(), 'arbor-verify-'));
  setup(cwd);
  return runVerifyGate(command, {
    cwd,
    caveats: { ...defaultRunGrant(cwd), exec },
    timeoutMs,
    env: { PATH: process.env.PATH, ARBOR_API_KEY: 'sk-verify-secret' },
    sandbox,
    protect: runStatePaths({ cwd, dbPath: '.arbor/arbor.db' }),
  });
}

describe('runVerifyGate without a sandbox', () => {
  it('refuses a narrowed leaf when bubblewrap is unavailable, saying why and what to do', async () => {
    const outcome = await gate('true', 'all', 10_000, { mode: 'unavailable', reason: 'no bwrap' });
    expect(outcome?.status).toBe('failed');
    expect(outcome?.result).toMatch(
      /^verify refused: the exec sandbox is unavailable \(no bwrap\)/,
    );
    expect(outcome?.result).toContain('apt-get install bubblewrap');
    expect(outcome?.result).toContain('--sandbox off');
  });

  it('runs the command directly when the operator turned the sandbox off', async () => {
    expect(await gate('test -d /proc/1', 'all', 10_000, { mode: 'off' })).toBeUndefined();
  });
});

describeWithSandbox('runVerifyGate', () => {
  it('fails a check that plants a commondir in the git directory, and removes it', async () => {
    let repo = '';
    const command = 'echo /elsewhere/.git > .git/commondir';
    const outcome = await gate(command, [command], 10_000, SANDBOX, (cwd) => {
      execFileSync('/usr/bin/git', ['init', '-q', cwd]);
      repo = cwd;
    });
    expect(outcome?.status).toBe('failed');
    expect(outcome?.result).toMatch(/removed .*\/\.git\/commondir, which the command created/);
    expect(existsSync(join(repo, '.git', 'commondir'))).toBe(false);
  });

  it('passes a command that exits 0, run in the leaf directory', async () => {
    expect(await gate('test "$(pwd)" != /', ['test "$(pwd)" != /'])).toBeUndefined();
  });

  it('fails a non-zero exit with the exit code and the tail of the output', async () => {
    const command = 'seq 1 5000; echo "assertion failed" >&2; exit 2';
    const outcome = await gate(command, [command]);
    expect(outcome?.status).toBe('failed');
    expect(outcome?.result).toContain('exited 2');
    expect(outcome?.result).toContain('assertion failed');
    expect(outcome?.result).toContain('5000');
    expect(outcome?.result).not.toMatch(/^1$/m);
    expect(outcome!.result!.length).toBeLessThan(5_000);
  });

  it('refuses a command the exec caveat does not permit exactly, without running it', async () => {
    const outcome = await gate('npm test', ['npm test ']);
    expect(outcome).toEqual({
      status: 'failed',
      result: "verify refused: `npm test` is not permitted by the leaf's exec caveat (exact match)",
    });
    expect((await gate('npm test', []))?.result).toContain('verify refused');
  });

  it('stops a command that runs past its timeout and fails the leaf', async () => {
    const outcome = await gate('echo started; sleep 30', 'all', 300);
    expect(outcome?.status).toBe('failed');
    expect(outcome?.result).toContain('timed out after 300 ms');
    expect(outcome?.result).toContain('started');
  });

  it('keeps credentials out of the command environment', async () => {
    const outcome = await gate('test -z "$ARBOR_API_KEY"', 'all');
    expect(outcome).toBeUndefined();
  });

  it('runs in the sandbox: the leaf directory is there, the store and the network are not', async () => {
    const command =
      'touch ok && ! touch .arbor/x 2>/dev/null && ! test -r /etc/shadow && test "$(ls /proc | grep -c "^[0-9]")" -lt 8';
    expect(await gate(command, [command])).toBeUndefined();
  });
});
