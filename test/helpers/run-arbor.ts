import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { plantedStdio } from './inherited-fds.js';

export const ARBOR_BIN = fileURLToPath(new URL('../../dist/bundle/arbor.mjs', import.meta.url));

export interface ArborRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  input?: string | Buffer | (string | Buffer)[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /**
   * Descriptors arbor inherits without close-on-exec, its number → ours, as from a shell's
   * `arbor run … 200<secret 201>>log` (see `plantedStdio`).
   */
  fds?: Readonly<Record<number, number>>;
}

/** Runs the built `arbor` CLI as a real process and collects its output and exit status. */
export function runArbor(args: string[], options: RunOptions = {}): Promise<ArborRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [ARBOR_BIN, ...args], {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      stdio: plantedStdio(options.fds ?? {}),
    });
    const { stdin, stdout: out, stderr: err } = child;
    if (stdin === null || out === null || err === null)
      throw new Error('arbor was spawned without pipes');
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    out.on('data', (chunk: Buffer) => stdout.push(chunk));
    err.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      resolve({
        code,
        signal,
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
      });
    });
    stdin.on('error', () => undefined);
    const input =
      options.input === undefined
        ? []
        : Array.isArray(options.input)
          ? options.input
          : [options.input];
    for (const chunk of input) stdin.write(chunk);
    stdin.end();
  });
}
