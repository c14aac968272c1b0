import type { Readable, Writable } from 'node:stream';

/**
 * The CLI's streams. Commands write through this and nothing else, so tests can run a command
 * in-process against in-memory streams, and nothing in `src/` outside the CLI touches stdout.
 */
export interface CliIo {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  /** Whether stderr is a terminal (live displays) or a pipe (NDJSON). */
  isStderrTty: boolean;
  /** Whether stdout is a terminal: the root's answer then streams there as it is written. */
  isStdoutTty?: boolean;
  env: NodeJS.ProcessEnv;
}

/** The process's own streams. */
export function processIo(): CliIo {
  return {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    isStderrTty: process.stderr.isTTY,
    isStdoutTty: process.stdout.isTTY,
    env: process.env,
  };
}

/** Writes text and waits for the stream to accept more, so large outputs keep backpressure. */
export async function write(stream: Writable, text: string): Promise<void> {
  if (text === '') return;
  if (stream.write(text)) return;
  await new Promise<void>((resolve, reject) => {
    const onDrain = (): void => {
      stream.off('error', onError);
      resolve();
    };
    const onError = (error: Error): void => {
      stream.off('drain', onDrain);
      reject(error);
    };
    stream.once('drain', onDrain);
    stream.once('error', onError);
  });
}
