import ipaddr from 'ipaddr.js';

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
 * counts as the IPv4 address it is. What cannot be parsed is refused too.
 */
export function specialAddress(address: string): string | undefined {
  if (!ipaddr.isValid(address)) return 'not an IP address';
  const range = ipaddr.process(address).range();
  if (range === 'unicast') return undefined;
  return RANGE_WORDS[range] ?? `a ${range} address`;
}
