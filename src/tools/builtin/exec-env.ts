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
 * The environment for `exec`: the allowed variables of `base` (locale `LC_*` included), plus
 * `extra`, which the operator sets on purpose and which is passed as given.
 */
export function execEnv(
  base: Readonly<Record<string, string | undefined>>,
  extra: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) {
    if (value !== undefined && (PASSED.has(name) || name.startsWith('LC_'))) env[name] = value;
  }
  return { ...env, ...extra };
}
