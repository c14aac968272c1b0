import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The environment for the `hostile` fixture child: it writes `lines` (text or raw bytes) after
 * `ready`, then, with `flood`, random bytes until it is killed.
 */
export function hostileEnv(
  lines: readonly (string | Uint8Array)[],
  options: { flood?: boolean } = {},
): NodeJS.ProcessEnv {
  const file = join(mkdtempSync(join(tmpdir(), 'arbor-hostile-')), 'lines');
  const encoded = lines.map((line) =>
    (typeof line === 'string' ? Buffer.from(line, 'utf8') : Buffer.from(line)).toString('base64'),
  );
  writeFileSync(file, `${encoded.join('\n')}\n`);
  return {
    PATH: process.env.PATH,
    ARBOR_FIXTURE_LINES: file,
    ...(options.flood === true ? { ARBOR_FIXTURE_FLOOD: '1' } : {}),
  };
}

/** `count` frames made by `frame(i)` for i = 1…count, one JSON line each. */
export function frames(count: number, frame: (i: number) => Record<string, unknown>): string[] {
  return Array.from({ length: count }, (_, i) => JSON.stringify(frame(i + 1)));
}
