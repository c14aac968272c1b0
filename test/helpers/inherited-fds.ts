import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** What a planted secret file holds: it must never show in what a spawned process could reach. */
export const SECRET = 'INHERITED-FD-SECRET-7f3a';

/** Descriptor numbers as an operator's shell hands them on: `arbor run … 200<secret 201>>log`. */
export const SECRET_FD = 200;
export const LOG_FD = 201;

/** A secret file and an append-only log, opened here, to be planted in a process at fixed numbers. */
export interface PlantedFiles {
  dir: string;
  secretFile: string;
  logFile: string;
  /** Descriptor number in the planted process → descriptor of this process. */
  fds: Record<number, number>;
  log(): string;
  close(): void;
}

/** Opens a fresh secret (read-only) and log (append), to be planted at `SECRET_FD` and `LOG_FD`. */
export function plantFiles(extra: readonly number[] = []): PlantedFiles {
  const dir = mkdtempSync(path.join(tmpdir(), 'arbor-fds-'));
  const secretFile = path.join(dir, 'secret.txt');
  const logFile = path.join(dir, 'log.txt');
  writeFileSync(secretFile, `${SECRET}\n`);
  writeFileSync(logFile, '');
  const secret = openSync(secretFile, 'r');
  const log = openSync(logFile, 'a');
  const fds: Record<number, number> = { [SECRET_FD]: secret, [LOG_FD]: log };
  for (const fd of extra) fds[fd] = secret;
  return {
    dir,
    secretFile,
    logFile,
    fds,
    log: () => readFileSync(logFile, 'utf8'),
    close: () => {
      closeSync(secret);
      closeSync(log);
    },
  };
}

/**
 * A `stdio` array giving a spawned process pipes on 0–2 and `fds` (its number → ours). libuv
 * `dup2`s each onto its number without close-on-exec, exactly as a shell's `200<file` does before
 * it runs a program (which `/bin/sh` cannot write for numbers above 9 where it is dash).
 */
export function plantedStdio(
  fds: Readonly<Record<number, number>>,
): (number | 'pipe' | 'ignore')[] {
  const stdio: (number | 'pipe' | 'ignore')[] = ['pipe', 'pipe', 'pipe'];
  for (const [at, fd] of Object.entries(fds)) {
    while (stdio.length <= Number(at)) stdio.push('ignore');
    stdio[Number(at)] = fd;
  }
  return stdio;
}

const SUBJECT = fileURLToPath(new URL('../fixtures/fds/fd-subject.mjs', import.meta.url));

/**
 * Runs the fd subject (`test/fixtures/fds/fd-subject.mjs`) with `fds` planted and returns the JSON
 * it prints. `shell` starts it through `bash -c` instead, with `shell` run before it (`ulimit`).
 */
export async function runSubject(
  fds: Readonly<Record<number, number>>,
  args: string[],
  shell?: string,
): Promise<Record<string, unknown>> {
  const [file, argv] =
    shell === undefined
      ? [process.execPath, [SUBJECT, ...args]]
      : ['/bin/bash', ['-c', `${shell}; exec "$0" "$@"`, process.execPath, SUBJECT, ...args]];
  const child = spawn(file, argv, { stdio: plantedStdio(fds) });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  if (code !== 0) throw new Error(`fd subject exited ${String(code)}: ${stderr}`);
  return JSON.parse(stdout) as Record<string, unknown>;
}
