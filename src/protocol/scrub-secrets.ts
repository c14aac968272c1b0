import { REDACTED } from './redact.js';

/**
 * Token-shaped text, whoever's it is: OpenAI-style `sk-…`/`pk-…`/`rk-…` keys, GitHub tokens
 * (`ghp_`, `gho_`, `ghs_`, `ghu_`, `ghr_`, `github_pat_`), Slack tokens (`xoxa-`, `xoxb-`, `xoxp-`,
 * `xoxr-`), AWS access key ids, `Bearer …` credentials, JWTs and PEM private key blocks.
 */
const SECRET_SHAPED = new RegExp(
  [
    String.raw`\b(?:sk|pk|rk)[-_][\w-]{6,}`,
    String.raw`\b(?:ghp|gho|ghs|ghu|ghr)_[A-Za-z0-9]{6,}`,
    String.raw`\bgithub_pat_\w{6,}`,
    String.raw`\bxox[abpr]-[\w-]{6,}`,
    String.raw`\b(?:AKIA|ASIA)[A-Z0-9]{16}\b`,
    String.raw`\bbearer\s+[\w.~+/=-]{6,}`,
    String.raw`\beyJ[\w-]{6,}\.[\w-]+\.[\w-]*`,
    String.raw`-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)`,
  ].join('|'),
  'gi',
);

/** Values shorter than this are not searched for: a 2-letter "key" would blank half the text. */
const MIN_SECRET_LENGTH = 4;

/**
 * Removes credentials from text that is about to leave arbor's hands or be recorded: an error
 * message that quotes what an endpoint said, a stderr line of an MCP server, an event. Every known
 * secret value is replaced verbatim, and anything shaped like a credential whoever's it is.
 * Providers echo keys ("Incorrect API key provided: sk-abc…"), proxies echo URLs and a server that
 * prints its environment on a crash must not put a token into arbor's records. This is the one
 * scrubber: everything that scrubs text calls it.
 */
export function scrubSecrets(text: string, secrets: readonly string[] = []): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length >= MIN_SECRET_LENGTH) out = out.split(secret).join(REDACTED);
  }
  return out.replace(SECRET_SHAPED, REDACTED);
}

/** Does `text` hold something shaped like a credential? */
export function looksSecret(text: string): boolean {
  SECRET_SHAPED.lastIndex = 0;
  const found = SECRET_SHAPED.test(text);
  SECRET_SHAPED.lastIndex = 0;
  return found;
}
