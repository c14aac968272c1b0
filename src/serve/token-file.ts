import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, lstatSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { arborStateDir, canonicalPath, isInside } from '../authority/index.js';
import { ArborError, type Caveats } from '../protocol/index.js';

/** Where the operator tokens of `arbor serve` live, under the user's state directory. */
const SERVE_TOKENS_DIR = 'serve-tokens';

/**
 * The file `arbor serve` writes its operator token to: in the user's state directory
 * (`ARBOR_STATE_DIR`, else `$XDG_STATE_HOME/arbor`, else `~/.local/state/arbor`), never in a
 * workspace, named after the store it serves (a short hash of its absolute path, or of the working
 * directory for `:memory:`), so two servers on two stores never share a file.
 */
export function serveTokenFile(env: NodeJS.ProcessEnv, dbPath: string, cwd: string): string {
  const store = dbPath === ':memory:' ? `:memory:${cwd}` : path.resolve(cwd, dbPath);
  const name = createHash('sha256').update(store, 'utf8').digest('hex').slice(0, 16);
  return path.join(arborStateDir(env), SERVE_TOKENS_DIR, name);
}

/**
 * Refuses a token file inside a directory the served runs may reach by their grant (the working
 * directory, the store's directory, any path of `fs_read` or `fs_write`): a state directory set
 * there would hand operator access to the agents. A user's mistake, said before anything starts.
 */
export function checkTokenPlace(
  file: string,
  places: { cwd: string; dbPath: string; grant: Pick<Caveats, 'fs_read' | 'fs_write'> },
): void {
  const real = canonicalPath(path.dirname(file));
  const covering: [string, string][] = [['the working directory', places.cwd]];
  if (places.dbPath !== ':memory:')
    covering.push(['the store’s directory', path.dirname(path.resolve(places.cwd, places.dbPath))]);
  for (const axis of ['fs_read', 'fs_write'] as const) {
    const scope = places.grant[axis];
    if (scope !== 'all') for (const entry of scope) covering.push([`the grant’s ${axis}`, entry]);
  }
  for (const [what, dir] of covering)
    if (isInside(canonicalPath(dir), real))
      throw new ArborError(
        'usage',
        `The operator token would be written to ${file}, inside ${what} (${dir}), where the agents it serves could read it: set ARBOR_STATE_DIR (or XDG_STATE_HOME) to a directory outside every workspace.`,
      );
}

/**
 * Writes a secret to `file` so that no one else may read it at any moment: its directory is made
 * (or kept) 0700 and must be a real directory of this user, not a link; the text goes to a fresh
 * temporary name created exclusively with mode 0600 (`wx` never follows a link), which is then
 * renamed over `file` in one step. A reader sees the old token or the new one, never a partial or
 * world-readable file.
 */
export function writeTokenFile(file: string, text: string): void {
  const dir = path.dirname(file);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stat = lstatSync(dir);
  const uid = process.getuid?.();
  if (!stat.isDirectory() || (uid !== undefined && stat.uid !== uid))
    throw new ArborError(
      'config',
      `${dir} is not a directory of this user (a link, or someone else's): the operator token is not written there.`,
    );
  chmodSync(dir, 0o700);
  const temporary = path.join(dir, `.${path.basename(file)}.${randomBytes(6).toString('hex')}`);
  try {
    writeFileSync(temporary, text, { mode: 0o600, flag: 'wx' });
    renameSync(temporary, file);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}
