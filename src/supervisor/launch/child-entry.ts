import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SpawnPayload } from '../../protocol/index.js';

/**
 * The child entry module: the one-file bundle (`dist/bundle/child.mjs`), which starts several times
 * faster than the per-module build, wherever this code runs from — the CLI bundle, the per-module
 * build in `dist/`, or the sources under test. The per-module `child/main.js` is the fallback.
 */
export function childEntryPath(): string {
  cachedEntry ??= findChildEntry();
  return cachedEntry;
}

let cachedEntry: string | undefined;

function findChildEntry(): string {
  // Walk up to arbor's package root; the bundle sits at a fixed place below it.
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 6; depth++) {
    for (const candidate of ['dist/bundle/child.mjs', 'dist/child/main.js']) {
      const path = join(dir, candidate);
      if (existsSync(path)) return path;
    }
    dir = dirname(dir);
  }
  throw new Error('cannot find the child entry (dist/bundle/child.mjs): run `npm run build`');
}

/** How a child process is started. */
export interface ChildCommand {
  command: string;
  args: string[];
}

/**
 * The command that starts a child: arbor's own child entry under the current Node binary, unless
 * `ARBOR_CHILD_COMMAND` names another program (see `customChildCommand`).
 */
export function childCommand(env: NodeJS.ProcessEnv): ChildCommand {
  return customChildCommand(env) ?? { command: process.execPath, args: [childEntryPath()] };
}

/**
 * The program `ARBOR_CHILD_COMMAND` names (a child written in another language, or a test
 * fixture), split on whitespace; the payload still arrives as the first frame on stdin.
 */
export function customChildCommand(env: NodeJS.ProcessEnv): ChildCommand | undefined {
  const custom = env.ARBOR_CHILD_COMMAND?.trim();
  if (custom === undefined || custom === '') return undefined;
  const [command = '', ...args] = custom.split(/\s+/);
  return { command, args };
}

/** Variables a child may see. Credentials are not among them: they travel in the payload. */
const PASSED =
  /^(PATH|HOME|USER|LOGNAME|SHELL|LANG|LANGUAGE|LC_[A-Z]+|TZ|TMPDIR|TMP|TEMP|TERM|SYSTEMROOT|COMSPEC)$/;
/** arbor's own knobs (timings, test kill points) pass, except anything that may hold a secret. */
const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL|REDIS/;

/**
 * The environment a child process starts with: an allow-list of the parent's, never a credential.
 * When the payload names an extra CA, Node loads it at start-up through `NODE_EXTRA_CA_CERTS`, so
 * it is in place before the child's first dial.
 */
export function childEnv(
  parent: NodeJS.ProcessEnv,
  payload: Pick<SpawnPayload, 'tls_ca'> = {},
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(parent)) {
    if (value === undefined) continue;
    if (PASSED.test(name) || (name.startsWith('ARBOR_') && !SECRET_NAME.test(name)))
      env[name] = value;
  }
  if (payload.tls_ca !== undefined) env.NODE_EXTRA_CA_CERTS = payload.tls_ca;
  return env;
}
