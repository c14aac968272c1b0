import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Direction, ViolationCode } from '../../src/protocol/index.js';

export const FIXTURES = fileURLToPath(new URL('../fixtures/protocol/', import.meta.url));

export interface ValidFixture {
  name: string;
  bytes: Buffer;
  type: string;
}

export interface InvalidFixture {
  name: string;
  bytes: Buffer;
  code: ViolationCode;
  reason: string;
  direction?: Direction;
}

function ndjsonFiles(dir: string): string[] {
  return readdirSync(join(FIXTURES, dir))
    .filter((file) => file.endsWith('.ndjson'))
    .sort();
}

/** Every golden frame: one valid frame per file. */
export function validFixtures(): ValidFixture[] {
  return ndjsonFiles('valid').map((file) => {
    const bytes = readFileSync(join(FIXTURES, 'valid', file));
    const { type } = JSON.parse(bytes.toString('utf8')) as { type: string };
    return { name: file.replace(/\.ndjson$/, ''), bytes, type };
  });
}

/** Every negative frame, with the violation code and a fragment of the reason it must produce. */
export function invalidFixtures(): InvalidFixture[] {
  const expected = JSON.parse(
    readFileSync(join(FIXTURES, 'invalid', 'expected.json'), 'utf8'),
  ) as Record<string, { code: ViolationCode; reason: string; direction?: Direction }>;
  const files = ndjsonFiles('invalid');
  const names = files.map((file) => file.replace(/\.ndjson$/, ''));
  const missing = Object.keys(expected).filter((name) => !names.includes(name));
  if (missing.length > 0)
    throw new Error(`expected.json names fixtures that do not exist: ${missing.join(', ')}`);
  return files.map((file, i) => {
    const name = names[i]!;
    const entry = expected[name];
    if (entry === undefined)
      throw new Error(`invalid fixture ${file} has no entry in expected.json`);
    return { name, bytes: readFileSync(join(FIXTURES, 'invalid', file)), ...entry };
  });
}
