import { describe, expect, it } from 'vitest';
import { runFile } from '../../../src/tools/sandbox/run-file.js';

const env = { PATH: '/usr/bin:/bin' };

describe('runFile', () => {
  it('collects stdout and stderr apart and the exit code, with stdin at /dev/null', async () => {
    const run = await runFile('/bin/sh', ['-c', 'cat; echo out; echo err >&2; exit 3'], { env });
    expect(run).toMatchObject({ code: 3, signal: null, timedOut: false, droppedBytes: 0 });
    expect(run.stdout).toBe('out\n');
    expect(run.stderr).toBe('err\n');
    expect(run.error).toBeUndefined();
  });

  it('gives the program only the environment it is handed', async () => {
    const run = await runFile('/bin/sh', ['-c', 'env'], { env: { ...env, ONLY: 'this' } });
    expect(run.stdout).toContain('ONLY=this');
    expect(run.stdout).not.toContain('HOME=');
  });

  it('describes a program that cannot start, without rejecting', async () => {
    const run = await runFile('/nonexistent/program', [], { env });
    expect(run.code).toBeNull();
    expect(run.error?.message).toMatch(/ENOENT/);
  });

  it('sends killSignal when the time is up', async () => {
    const run = await runFile('/bin/sh', ['-c', 'exec sleep 10'], {
      env,
      timeoutMs: 100,
      killSignal: 'SIGKILL',
    });
    expect(run).toMatchObject({ code: null, signal: 'SIGKILL', timedOut: true });
  });

  it('keeps the head of a long output and counts the rest', async () => {
    const run = await runFile('/bin/sh', ['-c', 'printf 0123456789'], { env, maxOutputBytes: 4 });
    expect(run.stdout).toBe('0123');
    expect(run.droppedBytes).toBe(6);
  });
});
