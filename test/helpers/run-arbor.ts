import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

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
}

/** Runs the built `arbor` CLI as a real process and collects its output and exit status. */
export function runArbor(args: string[], options: RunOptions = {}): Promise<ArborRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [ARBOR_BIN, ...args], {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      resolve({
        code,
        signal,
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
      });
    });
    child.stdin.on('error', () => undefined);
    const input =
      options.input === undefined
        ? []
        : Array.isArray(options.input)
          ? options.input
          : [options.input];
    for (const chunk of input) child.stdin.write(chunk);
    child.stdin.end();
  });
}
