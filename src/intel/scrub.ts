import { REDACTED } from '../protocol/index.js';

/** Key- and token-shaped text, whoever's it is: `sk-…`, `Bearer …`, JWTs. */
const SECRET_SHAPED =
  /\b(?:sk|pk|rk)-[\w-]{6,}|\bbearer\s+[\w.~+/=-]{6,}|\beyJ[\w-]{6,}\.[\w-]+\.[\w-]*/gi;

/** Secrets shorter than this are not searched for: a 2-letter "key" would blank half the text. */
const MIN_SECRET_LENGTH = 4;

/**
 * Removes credentials from text that is about to leave the intelligence layer (an error message
 * that quotes what an endpoint said, say): every known secret value verbatim, the endpoint's
 * address, and anything shaped like a key. Providers do echo keys ("Incorrect API key provided:
 * sk-abc…") and proxies echo URLs.
 */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length >= MIN_SECRET_LENGTH) out = out.split(secret).join(REDACTED);
  }
  return out.replace(SECRET_SHAPED, REDACTED);
}

/**
 * The credential-like strings of an intelligence config that may be invalid (so typed loosely):
 * each endpoint's `api_key` and header values. An error about the config must not quote them.
 */
export function configSecrets(config: unknown): string[] {
  const endpoints = (config as { endpoints?: unknown } | null)?.endpoints;
  if (!Array.isArray(endpoints)) return [];
  const out: string[] = [];
  for (const endpoint of endpoints as { api_key?: unknown; headers?: unknown }[]) {
    if (typeof endpoint.api_key === 'string') out.push(endpoint.api_key);
    if (typeof endpoint.headers === 'object' && endpoint.headers !== null) {
      for (const value of Object.values(endpoint.headers)) {
        if (typeof value === 'string') out.push(value);
      }
    }
  }
  return out;
}
