import { ArborError } from '../protocol/index.js';

/** The variable a Redis URL with a password comes from. */
export const REDIS_URL_VARIABLE = 'ARBOR_REDIS_URL';

const ENV_REFERENCE = /^(?:env:|\{\{env:)([A-Za-z_][A-Za-z0-9_]*)\}?\}?$/;

/**
 * The fleet's Redis URL: `--redis` (never with a password: it would show in `ps`), else
 * `ARBOR_REDIS_URL`, else `[queue] redis` in config (an `env:NAME` reference, or a URL without a
 * password). Undefined when none names one.
 */
export function fleetRedisUrl(
  given: { flag?: string | undefined; config?: string | undefined },
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  if (given.flag !== undefined) return checked(given.flag, '`--redis`', false);
  const fromEnv = env[REDIS_URL_VARIABLE];
  if (fromEnv !== undefined && fromEnv !== '')
    return checked(fromEnv, `\`${REDIS_URL_VARIABLE}\``, true);
  const configured = given.config;
  if (configured === undefined) return undefined;
  const reference = ENV_REFERENCE.exec(configured.trim());
  if (reference?.[1] !== undefined) {
    const value = env[reference[1]];
    if (value === undefined || value === '')
      throw new ArborError(
        'config',
        `\`[queue] redis\` names the environment variable \`${reference[1]}\`, which is not set.`,
      );
    return checked(value, `\`${reference[1]}\``, true);
  }
  return checked(configured, '`[queue] redis`', false);
}

function checked(raw: string, where: string, mayHoldPassword: boolean): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ArborError(
      'usage',
      `Expected ${where} to be a URL such as \`redis://host:6379\`, got \`${maskCredentials(raw)}\`.`,
    );
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:')
    throw new ArborError(
      'usage',
      `Expected ${where} to be a \`redis://\` or \`rediss://\` URL, got \`${url.protocol}\`.`,
    );
  if (!mayHoldPassword && url.password !== '')
    throw new ArborError(
      'usage',
      `${where} must not carry a password (it would show in \`ps\` or sit in a file): give the URL in \`${REDIS_URL_VARIABLE}\`, or name a variable with \`[queue] redis = "env:NAME"\`.`,
    );
  return raw;
}

/** Text that did not parse as a URL, with anything between `//` and the last `@` masked. */
function maskCredentials(raw: string): string {
  return raw.replace(/\/\/.*@/, '//[redacted]@');
}
