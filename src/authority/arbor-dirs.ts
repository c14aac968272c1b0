import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * arbor's own directories in the user's home, after the XDG base directory spec. Each is outside
 * every workspace, so no grant over a project covers it, and each is subtracted from every node's
 * grant all the same (`runStatePaths`): a grant of `~` or `all` must not reach them either.
 */

/** A variable's value when it names something, else `undefined`. */
function setting(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

/** Caches (the child's start-up snapshot): `ARBOR_CACHE_DIR`, else `$XDG_CACHE_HOME/arbor`, else `~/.cache/arbor`. */
export function arborCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return (
    setting(env, 'ARBOR_CACHE_DIR') ??
    join(setting(env, 'XDG_CACHE_HOME') ?? join(homedir(), '.cache'), 'arbor')
  );
}

/**
 * State that must outlive a process but is no project's (`arbor serve`'s operator tokens):
 * `ARBOR_STATE_DIR`, else `$XDG_STATE_HOME/arbor`, else `~/.local/state/arbor`.
 */
export function arborStateDir(env: NodeJS.ProcessEnv = process.env): string {
  return (
    setting(env, 'ARBOR_STATE_DIR') ??
    join(setting(env, 'XDG_STATE_HOME') ?? join(homedir(), '.local', 'state'), 'arbor')
  );
}

/** The user's settings and keys: `ARBOR_CONFIG_DIR`, else `$XDG_CONFIG_HOME/arbor`, else `~/.config/arbor`. */
export function arborConfigDir(env: NodeJS.ProcessEnv = process.env): string {
  return (
    setting(env, 'ARBOR_CONFIG_DIR') ??
    join(setting(env, 'XDG_CONFIG_HOME') ?? join(homedir(), '.config'), 'arbor')
  );
}
