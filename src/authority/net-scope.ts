import { isIPv4, isIPv6 } from 'node:net';
import type { Scope } from '../protocol/index.js';

/**
 * The `net` axis: which hosts a node may reach (with `http.fetch`; a command in the sandbox gets
 * either the whole network, for `net = "all"`, or none). An entry is
 *
 * - a host name (`api.example.com`), an IPv4 address, or an IPv6 address in brackets (`[::1]`):
 *   that host, on any port;
 * - any of those with a port (`api.example.com:8443`, `127.0.0.1:8080`, `[::1]:8080`);
 * - `*.suffix` (`*.example.com`, optionally with a port): every name under the suffix, not the
 *   suffix itself.
 *
 * Names compare case-insensitively and without a trailing dot; addresses compare in canonical
 * form. An entry that cannot be read matches nothing.
 */
export interface NetEntry {
  /** Lower-case host name without a trailing dot, or an address in canonical form. */
  host: string;
  port: number | undefined;
  /** `*.suffix`: `host` is the suffix. */
  wildcard: boolean;
}

const LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;

/** Reads one `--net` entry; a string is why it cannot be read. */
export function parseNetEntry(text: string): NetEntry | string {
  const raw = text.trim().toLowerCase();
  if (raw === '') return 'an empty host';
  if (raw.includes('/')) return `\`${text}\`: expected a host name, not a URL or a path`;
  let rest = raw;
  let wildcard = false;
  if (rest.startsWith('*.')) {
    wildcard = true;
    rest = rest.slice(2);
  }
  let host: string;
  let portText: string | undefined;
  if (rest.startsWith('[')) {
    const close = rest.indexOf(']');
    if (close < 0) return `\`${text}\`: an IPv6 address needs its closing \`]\``;
    host = rest.slice(1, close);
    const after = rest.slice(close + 1);
    if (after !== '' && !after.startsWith(':'))
      return `\`${text}\`: expected \`:PORT\` after \`]\``;
    portText = after === '' ? undefined : after.slice(1);
  } else if ((rest.match(/:/g) ?? []).length > 1) {
    host = rest;
  } else {
    const colon = rest.indexOf(':');
    host = colon < 0 ? rest : rest.slice(0, colon);
    portText = colon < 0 ? undefined : rest.slice(colon + 1);
  }
  const port = portText === undefined ? undefined : Number(portText);
  if (port !== undefined && (!/^\d{1,5}$/.test(portText ?? '') || port < 1 || port > 65_535))
    return `\`${text}\`: expected a port from 1 to 65535, got \`${portText ?? ''}\``;
  const normal = normalizeHost(host);
  if (normal === undefined) return `\`${text}\`: expected a host name, an IP address, or *.suffix`;
  if (wildcard && (isIPv4(normal) || isIPv6(normal)))
    return `\`${text}\`: a wildcard needs a name, not an address`;
  return { host: normal, port, wildcard };
}

/**
 * The canonical form of a host name or address, or `undefined` when it is neither. IPv4 must be a
 * dotted quad (`127.1` and `0x7f.1` are refused, not guessed at); IPv6 is written the way the
 * WHATWG URL parser writes it (`::1`, lower case, zeros compressed).
 */
export function normalizeHost(host: string): string | undefined {
  const bare = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '');
  if (bare === '') return undefined;
  if (isIPv4(bare)) return bare.split('.').map(Number).join('.');
  if (isIPv6(bare)) return new URL(`http://[${bare}]/`).hostname.slice(1, -1);
  const labels = bare.split('.');
  // A name ending in a number (`127.1`, `0x7f.1`) is an IPv4 shorthand to a URL parser: refused.
  if (/^(\d+|0x[\da-f]*)$/.test(labels.at(-1) ?? '')) return undefined;
  return labels.every((label) => LABEL.test(label)) ? bare : undefined;
}

/** The entry in its canonical spelling. */
export function formatNetEntry(entry: NetEntry): string {
  const host = entry.host.includes(':') ? `[${entry.host}]` : entry.host;
  return `${entry.wildcard ? '*.' : ''}${host}${entry.port === undefined ? '' : `:${entry.port}`}`;
}

/** What a `net` scope says about one host and port. */
export interface NetDecision {
  allowed: boolean;
  /**
   * An entry names this very host (or address), not through `all` nor a wildcard: what it takes
   * to reach a loopback, private or metadata address.
   */
  named: boolean;
}

export function permitsNet(
  scope: 'all' | readonly string[],
  host: string,
  port: number,
): NetDecision {
  if (scope === 'all') return { allowed: true, named: false };
  const target = normalizeHost(host);
  if (target === undefined) return { allowed: false, named: false };
  let allowed = false;
  let named = false;
  for (const text of scope) {
    const entry = parseNetEntry(text);
    if (typeof entry === 'string') continue;
    if (entry.port !== undefined && entry.port !== port) continue;
    if (entry.wildcard) {
      if (target.endsWith(`.${entry.host}`)) allowed = true;
    } else if (entry.host === target) {
      allowed = true;
      named = true;
    }
  }
  return { allowed, named };
}

/**
 * The entries of a run's `net` grant that name one host or address exactly (no wildcard): what
 * the payload's `named_hosts` holds. `all` names nothing.
 */
export function namedHosts(scope: Scope): string[] {
  if (scope === 'all') return [];
  return readable(scope)
    .filter((entry) => !entry.wildcard)
    .map(formatNetEntry);
}

/** Does the scope grant any network at all? */
export function grantsNet(scope: Scope): boolean {
  return scope === 'all' || scope.length > 0;
}

/**
 * `a ⊓ b` for `net`, reading entries as the host sets they stand for: exactly the hosts and ports
 * both allow. Two such sets intersect only when one holds the other (a host in a wildcard's
 * domain, a port within "any port"), so the meet keeps each entry of either side that the other
 * side allows. An entry that cannot be read is dropped: it allows nothing.
 */
export function meetNetScopes(a: Scope, b: Scope): Scope {
  if (a === 'all' && b === 'all') return 'all';
  const left = a === 'all' ? undefined : readable(a);
  const right = b === 'all' ? undefined : readable(b);
  if (left === undefined) return unique(right ?? []);
  if (right === undefined) return unique(left);
  // Each pair meets in what both allow: `*.example.com:443` ⊓ `*.api.example.com` is
  // `*.api.example.com:443`, which neither entry is within.
  return unique(left.flatMap((x) => right.flatMap((y) => meetEntry(x, y) ?? [])));
}

/** The hosts and ports both entries allow, as one entry; `undefined` when they share none. */
function meetEntry(x: NetEntry, y: NetEntry): NetEntry | undefined {
  if (x.port !== undefined && y.port !== undefined && x.port !== y.port) return undefined;
  const port = x.port ?? y.port;
  const narrower = hostWithin(x, y) ? x : hostWithin(y, x) ? y : undefined;
  return narrower === undefined ? undefined : { ...narrower, port };
}

/** Is every host `x` names also named by `y` (ports aside)? */
function hostWithin(x: NetEntry, y: NetEntry): boolean {
  if (!y.wildcard) return !x.wildcard && x.host === y.host;
  return x.host === y.host ? x.wildcard : x.host.endsWith(`.${y.host}`);
}

function readable(scope: readonly string[]): NetEntry[] {
  return scope.map(parseNetEntry).filter((entry): entry is NetEntry => typeof entry !== 'string');
}

function unique(entries: readonly NetEntry[]): string[] {
  return [...new Set(entries.map(formatNetEntry))];
}
