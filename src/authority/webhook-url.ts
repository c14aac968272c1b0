import { isIP } from 'node:net';
import { permitsNet } from './net-scope.js';
import { specialAddress } from './special-addresses.js';

/** A URL `arbor serve` may call out to, as far as its own words tell. */
export type WebhookUrl =
  { ok: true; url: URL; host: string; port: number } | { ok: false; reason: string };

/**
 * The rules for every URL `arbor serve` calls out to (A2A push notifications, `[serve] on_gate`)
 * that the URL itself decides: http or https only, and no user name or password in it. The same
 * function checks a URL when the config is loaded, when a push config is made, and when a
 * notification is delivered, so a URL is never accepted at one step and refused at the next.
 */
export function readWebhookUrl(text: string): WebhookUrl {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, reason: 'not a URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return { ok: false, reason: `only http: and https: URLs are called, not \`${url.protocol}\`` };
  if (url.username !== '' || url.password !== '')
    return { ok: false, reason: 'a URL with a user name or password in it is not called' };
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  return { ok: true, url, host, port };
}

/**
 * Why the address a webhook's host resolves to may not be called, or undefined when it may: a
 * loopback, private, link-local (cloud metadata) or other special address is refused unless a
 * `[serve] webhook_allow` entry names the host or the address exactly.
 */
export function webhookAddressProblem(
  host: string,
  address: string,
  port: number,
  allow: readonly string[],
): string | undefined {
  const special = specialAddress(address);
  if (special === undefined) return undefined;
  if (permitsNet(allow, host, port).named || permitsNet(allow, address, port).named)
    return undefined;
  return `${host} resolves to ${special}; only a \`[serve] webhook_allow\` entry naming it allows that`;
}

/**
 * Why a webhook URL may not be called, as far as can be told without resolving a name: its own
 * words and, when its host is an address, that address. A host name is left to be resolved.
 */
export function webhookUrlProblem(text: string, allow: readonly string[]): string | undefined {
  const read = readWebhookUrl(text);
  if (!read.ok) return read.reason;
  if (isIP(read.host) === 0) return undefined;
  return webhookAddressProblem(read.host, read.host, read.port, allow);
}
