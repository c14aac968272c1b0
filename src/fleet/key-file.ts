import { readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ArborError } from '../protocol/index.js';
import { FleetIdentity } from './fleet-identity.js';

/** The variable naming this process's private key file (the supervisor's, or a worker's). */
const PRIVATE_KEY_FILE_VARIABLE = 'ARBOR_FLEET_PRIVATE_KEY_FILE';

/** How a config file names a private key: by its file, never by its value. */
const FILE_REF = /^file:(.+)$/;

/**
 * Where this process's fleet private key is: `flag` (`arbor worker --key FILE`), else
 * `ARBOR_FLEET_PRIVATE_KEY_FILE`, else the config's `file:/path`. A key is only ever named by its
 * file, so it never shows in `ps` or in a config file.
 */
export function privateKeyFile(
  given: { flag?: string | undefined; config?: string | undefined },
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  if (given.flag !== undefined) return path.resolve(given.flag);
  const fromEnv = env[PRIVATE_KEY_FILE_VARIABLE];
  if (fromEnv !== undefined && fromEnv !== '') return path.resolve(fromEnv);
  if (given.config === undefined) return undefined;
  const file = FILE_REF.exec(given.config)?.[1];
  if (file === undefined || !path.isAbsolute(file))
    throw new ArborError(
      'config',
      `Expected a fleet key as \`file:/absolute/path\` (a private key is never written in the config file), got \`${given.config.slice(0, 40)}\`.`,
    );
  return file;
}

/**
 * Reads a private key file, as SSH does: it must be a regular file that neither its group nor
 * anyone else may read or write (mode 0600 or tighter), and hold an Ed25519 key in PEM.
 */
export function readPrivateKeyFile(file: string): FleetIdentity {
  let mode: number;
  try {
    const stat = statSync(file);
    if (!stat.isFile())
      throw new ArborError('config', `The fleet key \`${file}\` is not a regular file.`);
    mode = stat.mode & 0o777;
  } catch (error) {
    if (error instanceof ArborError) throw error;
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new ArborError('config', `Cannot read the fleet key \`${file}\` (${code}).`, {
      cause: error,
    });
  }
  if ((mode & 0o077) !== 0)
    throw new ArborError(
      'config',
      `The fleet key \`${file}\` has mode ${octal(mode)}: its group or others may use it. A private key must be the owner's alone: \`chmod 600 ${file}\`.`,
    );
  return FleetIdentity.fromPem(readFileSync(file, 'utf8'), `the fleet key \`${file}\``);
}

/** Writes a new private key file, mode 0600; an existing file is never overwritten. */
export function writePrivateKeyFile(file: string, pem: string): void {
  try {
    writeFileSync(file, pem, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST')
      throw new ArborError(
        'usage',
        `\`${file}\` already exists: a key file is never overwritten (remove it first, or give another \`--out\`).`,
      );
    throw new ArborError('usage', `Cannot write \`${file}\` (${code ?? String(error)}).`, {
      cause: error,
    });
  }
}

function octal(mode: number): string {
  return `0${mode.toString(8).padStart(3, '0')}`;
}
