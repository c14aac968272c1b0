import { SecretMatcher } from './secret-matcher.js';
import { SecretScrubber } from './secret-scrubber.js';

/** The credential shapes alone, for text scrubbed without any known value. */
const SHAPES_ONLY = new SecretMatcher([]);

/**
 * Removes credentials from one text about to leave arbor's hands or be recorded: an error message
 * that quotes what an endpoint said, a stderr line of an MCP server. Providers echo keys
 * ("Incorrect API key provided: sk-abc…"), proxies echo URLs, and a server that prints its
 * environment on a crash must not put a token into arbor's records. A shorthand for
 * `new SecretScrubber(secrets).text(text)`: a run scrubs everything with its one `SecretScrubber`.
 */
export function scrubSecrets(text: string, secrets: readonly string[] = []): string {
  if (secrets.length === 0) return SHAPES_ONLY.replace(text, 0, text.length);
  return new SecretScrubber(secrets).text(text);
}

/** Does `text` hold something shaped like a credential? */
export function looksSecret(text: string): boolean {
  return !SHAPES_ONLY.spans(text).next().done;
}
