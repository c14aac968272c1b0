import type { IntelConfig } from './intelligence.js';
import type { NetCredential } from './net-credential.js';
import type { SpawnPayload } from './payload.js';
import { holdsCredential } from './redact.js';

/** An auth scheme word in front of a credential: the model may echo the token without it. */
const SCHEME = /^\s*(?:bearer|basic|token|apikey)\s+/i;

/**
 * Every credential value a payload carries, for the run's secret scrubber: endpoint keys, the
 * credential headers and variables of endpoints, MCP servers and A2A peers (a header that is not a
 * credential, `content-type: application/json`, is not one: it would blank ordinary words), the
 * passwords of their URLs, an aauth enrollment token, and the values of `http.fetch` credentials.
 */
export function payloadSecrets(payload: SpawnPayload): string[] {
  const out = intelSecrets(payload.intelligence);
  for (const server of payload.mcp_servers) {
    out.push(...mapSecrets(server.headers), ...mapSecrets(server.env));
    if (server.url !== undefined) out.push(...urlSecrets(server.url));
  }
  for (const peer of payload.a2a_peers)
    out.push(...mapSecrets(peer.headers), ...urlSecrets(peer.url));
  const token = payload.aauth?.enrollment_token;
  if (token !== undefined && holdsCredential('enrollment_token', token)) out.push(token);
  out.push(...netCredentialSecrets(payload.net_credentials ?? []));
  return out;
}

/**
 * The values of `http.fetch` credentials, each also without its auth scheme word (a server may
 * echo the bare token). Every one is a secret whatever its header's name.
 */
export function netCredentialSecrets(credentials: readonly NetCredential[]): string[] {
  return credentials.flatMap(({ value }) => {
    const bare = value.replace(SCHEME, '');
    return bare === value ? [value] : [value, bare];
  });
}

/** The credential values of an intelligence config: each endpoint's key, headers and URL. */
export function intelSecrets(intel: IntelConfig): string[] {
  const out: string[] = [];
  for (const endpoint of intel.endpoints) {
    if (endpoint.api_key !== undefined) out.push(endpoint.api_key);
    out.push(...mapSecrets(endpoint.headers), ...urlSecrets(endpoint.url));
  }
  return out;
}

/** The password of a URL's user-info, and its credential query parameters. */
export function urlSecrets(raw: string): string[] {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return [];
  }
  const out = url.password === '' ? [] : [url.password, decoded(url.password)];
  for (const [name, value] of url.searchParams) if (holdsCredential(name, value)) out.push(value);
  return out;
}

function mapSecrets(map: Readonly<Record<string, string>>): string[] {
  const out: string[] = [];
  for (const [name, value] of Object.entries(map)) {
    if (!holdsCredential(name, value)) continue;
    out.push(value);
    const bare = value.replace(SCHEME, '');
    if (bare !== value) out.push(bare);
  }
  return out;
}

/** A URL part as written before percent-encoding (as it is, if it does not decode). */
function decoded(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}
