import ipaddr from 'ipaddr.js';
import { normalizeHost } from './net-scope.js';

/** How `http.fetch` names a range it will not reach unless an entry names the host exactly. */
const RANGE_WORDS: Readonly<Record<string, string>> = {
  loopback: 'a loopback address',
  private: 'a private address',
  linkLocal: 'a link-local address (cloud metadata services live there)',
  uniqueLocal: 'a private (unique local) address',
  carrierGradeNat: 'a shared (carrier-grade NAT) address',
  unspecified: 'the unspecified address',
  broadcast: 'a broadcast address',
  multicast: 'a multicast address',
  reserved: 'a reserved address',
  ipv4Mapped: 'an IPv4-mapped address',
  rfc6145: 'a translated address',
  rfc6052: 'a NAT64 address',
  '6to4': 'a 6to4 address',
  teredo: 'a Teredo address',
  benchmarking: 'a benchmarking address',
  amt: 'an AMT address',
  as112: 'an AS112 address',
  deprecated: 'a deprecated address',
  orchid2: 'an ORCHIDv2 address',
  discard: 'a discard address',
};

/**
 * Why an address is not an ordinary public one, or `undefined` when it is. Loopback, private,
 * link-local (where cloud metadata services answer, `169.254.169.254`), unique-local, shared,
 * multicast and reserved ranges all count; an IPv4 address written as IPv6 (`::ffff:127.0.0.1`)
 * counts as the IPv4 address it is; NAT64 (`64:ff9b::/96`, `64:ff9b:1::/48`), 6to4 and Teredo
 * count whatever they embed. What cannot be parsed is refused too, with or without its brackets.
 */
export function specialAddress(address: string): string | undefined {
  // In the URL parser's spelling: ipaddr.js reads `::8.8.8.8` as `::ffff:8.8.8.8`, not `::808:808`.
  const bare = address.includes(':') ? normalizeHost(address) : address;
  if (bare === undefined || !ipaddr.isValid(bare)) return 'not an IP address';
  const compatible = ipv4Compatible(bare);
  if (compatible !== undefined) return compatible;
  const range = ipaddr.process(bare).range();
  if (range === 'unicast') return undefined;
  return RANGE_WORDS[range] ?? `a ${range} address`;
}

/**
 * An IPv4-compatible IPv6 address (`::/96`, deprecated since RFC 4291: `::127.0.0.1`, which the
 * URL parser writes `::7f00:1`) says so, naming the IPv4 address it embeds. ipaddr.js knows no
 * such range and calls `::7f00:1` ordinary unicast, so it is checked here on the address's own
 * words; `::` and `::1` keep their own names.
 */
function ipv4Compatible(address: string): string | undefined {
  if (!address.includes(':')) return undefined;
  const parts = ipaddr.IPv6.parse(address).parts;
  if (parts.slice(0, 6).some((part) => part !== 0)) return undefined;
  const [high = 0, low = 0] = parts.slice(6);
  if (high === 0 && low <= 1) return undefined;
  const embedded = [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
  return `an IPv4-compatible address (deprecated; it embeds ${embedded})`;
}
