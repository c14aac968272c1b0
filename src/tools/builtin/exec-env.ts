/**
 * Variables a command may inherit. Everything else is left out: an allow-list, because a deny-list
 * of "secret-looking" names misses `DATABASE_URL=postgres://user:password@…` and every credential
 * whose name nobody thought of. The model's API key in particular never reaches a command.
 */
const PASSED = new Set([
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LANGUAGE',
  'TZ',
  'TERM',
  'COLORTERM',
  'NO_COLOR',
  'FORCE_COLOR',
  'TMPDIR',
  'TMP',
  'TEMP',
  'CI',
  'NODE_ENV',
]);

/**
 * Who a command's `git commit` is by, unless the host's environment says: the sandbox keeps the
 * repository's config read-only (and the user's own out of reach), so a commit must not need
 * `user.name` there.
 */
const GIT_IDENTITY: Readonly<Record<string, string>> = {
  GIT_AUTHOR_NAME: 'arbor',
  GIT_AUTHOR_EMAIL: 'arbor@localhost',
  GIT_COMMITTER_NAME: 'arbor',
  GIT_COMMITTER_EMAIL: 'arbor@localhost',
};

/**
 * The environment for `exec`: the allowed variables of `base` (locale `LC_*` included), git's
 * commit identity (the host's `GIT_AUTHOR_*` and `GIT_COMMITTER_*`, else arbor's), plus `extra`,
 * which the operator sets on purpose and which is passed as given.
 */
export function execEnv(
  base: Readonly<Record<string, string | undefined>>,
  extra: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) {
    if (value !== undefined && (PASSED.has(name) || name.startsWith('LC_'))) env[name] = value;
  }
  for (const [name, fallback] of Object.entries(GIT_IDENTITY)) {
    const value = base[name];
    env[name] = value === undefined || value === '' ? fallback : value;
  }
  return { ...env, ...extra };
}
