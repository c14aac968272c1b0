import type { Frame } from './decode.js';
import type { IntelConfig } from './intelligence.js';
import type { SpawnPayload } from './payload.js';
import type { A2aPeerSpec, AAuthSettings, McpServerSpec } from './servers.js';

/** What a redacted value is replaced with. */
export const REDACTED = '[redacted]';

/** Names of headers and variables whose values are credentials. */
const SECRET_NAME = /auth|token|secret|passw|key|cookie|session|credential|signature/i;

/** Values that look like credentials whatever their name: bearer tokens, `sk-…` keys, JWTs. */
const SECRET_VALUE =
  /^(bearer|basic|token)\s+\S|^(sk|pk|rk|ghp|gho|ghs|xox[abp])[-_]|^eyJ[\w-]+\.[\w-]+\./i;

/** A reference to a secret, resolved where it is used: `{{secret:NAME}}`, `{{secret-file:PATH}}`, `{{env:NAME}}`. */
const SECRET_REFERENCE = /\{\{(?:secret|secret-file|env):[^}]+\}\}/g;

/** Literal text allowed around references: an auth scheme word and spaces. */
const SCHEME_ONLY = /^\s*(bearer|basic|token|apikey)?\s*$/i;

/**
 * Does a value hold secret material of its own? A value made only of secret references (and an
 * auth scheme word) does not: it names where the secret lives, so it is kept, and a restored node
 * can resolve it again.
 */
function isReferenceOnly(value: string): boolean {
  const references = value.match(SECRET_REFERENCE);
  return references !== null && SCHEME_ONLY.test(value.replace(SECRET_REFERENCE, ''));
}

/** Is this header or variable a credential: by its name, or by the shape of its value? */
export function holdsCredential(name: string, value: string): boolean {
  if (isReferenceOnly(value)) return false;
  return SECRET_NAME.test(name) || SECRET_VALUE.test(value.trim());
}

function redactValue(name: string, value: string): string {
  return holdsCredential(name, value) ? REDACTED : value;
}

/** Redacts the credential values of a header or environment map, keeping the names. */
export function redactSecretMap(map: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(map)) out[name] = redactValue(name, value);
  return out;
}

/** Strips a password from a URL's user-info and redacts credential-looking query parameters. */
export function redactUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return raw;
  }
  let changed = false;
  if (url.password !== '') {
    url.password = REDACTED;
    changed = true;
  }
  for (const [name, value] of [...url.searchParams]) {
    if (redactValue(name, value) !== value) {
      url.searchParams.set(name, REDACTED);
      changed = true;
    }
  }
  return changed ? url.toString() : raw;
}

/** The intelligence config without credentials: no `api_key`, no auth header values. */
export function redactIntel(intel: IntelConfig): IntelConfig {
  return {
    ...intel,
    endpoints: intel.endpoints.map(({ api_key: _dropped, ...endpoint }) => ({
      ...endpoint,
      url: redactUrl(endpoint.url),
      headers: redactSecretMap(endpoint.headers),
    })),
  };
}

function redactServer(server: McpServerSpec): McpServerSpec {
  return {
    ...server,
    env: redactSecretMap(server.env),
    headers: redactSecretMap(server.headers),
    ...(server.url === undefined ? {} : { url: redactUrl(server.url) }),
  };
}

function redactPeer(peer: A2aPeerSpec): A2aPeerSpec {
  return { ...peer, url: redactUrl(peer.url), headers: redactSecretMap(peer.headers) };
}

function redactAAuth(aauth: AAuthSettings): AAuthSettings {
  const token = aauth.enrollment_token;
  if (token === undefined || isReferenceOnly(token)) return aauth;
  return { ...aauth, enrollment_token: REDACTED };
}

/**
 * The copy of a payload that may be stored, logged or shown: no credential, no authentication
 * header value, no secret of any kind. Secret references are kept so the node can be restored.
 */
export function redactPayload(payload: SpawnPayload): SpawnPayload {
  return {
    ...payload,
    intelligence: redactIntel(payload.intelligence),
    mcp_servers: payload.mcp_servers.map(redactServer),
    a2a_peers: payload.a2a_peers.map(redactPeer),
    ...(payload.aauth === undefined ? {} : { aauth: redactAAuth(payload.aauth) }),
    ...(payload.net_credentials === undefined
      ? {}
      : { net_credentials: payload.net_credentials.map((c) => ({ ...c, value: REDACTED })) }),
  };
}

/** The copy of any frame that may be logged or stored. Only `spawn` and `swap_intel` carry secrets. */
export function redactFrame<F extends Frame>(frame: F): F {
  if (frame.type === 'spawn') return { ...frame, payload: redactPayload(frame.payload) };
  if (frame.type === 'swap_intel')
    return { ...frame, intelligence: redactIntel(frame.intelligence) };
  return frame;
}
