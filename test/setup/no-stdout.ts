import { afterEach, beforeEach } from 'vitest';

/**
 * Stdout is a protocol channel: a test that writes to it unexpectedly fails. Writes are recorded
 * (not passed through) and the test that made them fails in `afterEach`.
 */
const originalWrite = process.stdout.write.bind(process.stdout);
let written: string[] = [];

beforeEach(() => {
  written = [];
  process.stdout.write = (chunk: string | Uint8Array): boolean => {
    written.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    return true;
  };
});

afterEach(() => {
  process.stdout.write = originalWrite;
  if (written.length > 0) {
    throw new Error(
      `test wrote to stdout (a protocol channel): ${JSON.stringify(written.join('').slice(0, 200))}`,
    );
  }
});
