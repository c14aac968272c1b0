import { ArborError } from '../protocol/index.js';

/**
 * Refuses an endpoint URL that carries a user name or password (`http://user:pass@host/v1`):
 * arbor sends the key as the dialect's header, from the environment, and a URL is shown in
 * events, logs and `ps`. Checked with the other settings, before any run exists. The error names
 * where the URL came from and shows it without its user-info, never the password.
 */
export function refuseUrlCredentials(urls: readonly string[], source: string): void {
  for (const text of urls) {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      continue; // Not a URL at all: the endpoint schema says so, in its own words.
    }
    if (url.username === '' && url.password === '') continue;
    throw new ArborError(
      'usage',
      `Expected \`${source}\` to give endpoint URLs without a user name or password, got one for ${url.protocol}//${url.host}${url.pathname}: put the key in ARBOR_API_KEY (or OPENAI_API_KEY / ANTHROPIC_API_KEY by dialect), never in the URL.`,
    );
  }
}
