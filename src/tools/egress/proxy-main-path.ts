import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ENTRY = 'dist/tools/egress/proxy-main.js';

/**
 * The egress proxy's entry module, wherever this code runs from: the CLI bundle, the per-module
 * build in `dist/`, or the sources under test. It is found below arbor's package root.
 */
export function proxyMainPath(): string {
  cachedEntry ??= findEntry();
  return cachedEntry;
}

let cachedEntry: string | undefined;

function findEntry(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 6; depth++) {
    const path = join(dir, ENTRY);
    if (existsSync(path)) return path;
    dir = dirname(dir);
  }
  throw new Error(`cannot find the egress proxy's entry (${ENTRY}): run \`npm run build\``);
}
