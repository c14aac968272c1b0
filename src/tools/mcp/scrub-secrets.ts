import { REDACTED } from '../../protocol/index.js';

/** Token-shaped text, whoever's it is: `sk-…`, `Bearer …`, JWTs. */
const SECRET_SHAPED =
  /\b(?:sk|pk|rk|ghp|gho|ghs)[-_][\w-]{6,}|\bbearer\s+[\w.~+/=-]{6,}|\beyJ[\w-]{6,}\.[\w-]+\.[\w-]*/gi;

/** Values shorter than this are not searched for: a 2-letter value would blank half the text. */
const MIN_SECRET_LENGTH = 4;

/**
 * Removes credentials from text that came from an MCP server or its transport (a stderr line, an
 * error message that quotes a request): every value arbor handed the server as a secret, verbatim,
 * and anything shaped like a token. A server that prints its environment on a crash must not put
 * a token into arbor's errors.
 */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length >= MIN_SECRET_LENGTH) out = out.split(secret).join(REDACTED);
  }
  return out.replace(SECRET_SHAPED, REDACTED);
}
