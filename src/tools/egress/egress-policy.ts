import type * as DnsPromises from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import type * as SpecialAddresses from '../../authority/special-addresses.js';
import { permitsNet } from '../../authority/index.js';
import type { Scope } from '../../protocol/index.js';

/** Modules loaded on first use (a child that never fetches never loads them), then kept. */
let dns: Promise<typeof DnsPromises> | undefined;
let specialAddresses: Promise<typeof SpecialAddresses> | undefined;

/** Resolves a host name to its addresses (`dns.lookup` order); tests stand in their own. */
export type ResolveHost = (host: string) => Promise<{ address: string; family: 4 | 6 }[]>;

/** The system resolver, loaded on first use (a child that never fetches never loads it). */
export const resolveWithDns: ResolveHost = async (host) => {
  dns ??= import('node:dns/promises');
  const { lookup } = await dns;
  return (await lookup(host, { all: true, verbatim: true })).map((a) => ({
    address: a.address,
    family: a.family === 6 ? 6 : 4,
  }));
};

/** What may be reached: the node's `net`, the hosts the operator named, and how names resolve. */
export interface EgressRules {
  net: Scope;
  /** The hosts the operator named exactly: the only ones that may resolve to a special address. */
  named: readonly string[];
  resolve: ResolveHost;
}

export type EgressDecision =
  { ok: true; address: string; family: 4 | 6 } | { ok: false; why: string };

/**
 * The one egress decision, for `http.fetch` and the egress proxy alike. The host (and port) must
 * be allowed by `net`; its name is resolved once, and the address to connect to is the first
 * answer; a loopback, private, link-local (cloud metadata) or other special address is refused
 * unless the operator named the host or that address exactly. The caller connects to the address
 * returned, never looking the name up again, so a name cannot pass the check with one address and
 * connect to another.
 */
export async function checkEgress(
  host: string,
  port: number,
  { net, named, resolve }: EgressRules,
): Promise<EgressDecision> {
  const decision = permitsNet(net, host, port);
  if (!decision.allowed)
    return { ok: false, why: `${host}:${port} is not in net (allowed: ${describeNet(net)})` };
  let addresses: { address: string; family: 4 | 6 }[];
  try {
    addresses = await resolve(host);
  } catch (error) {
    return {
      ok: false,
      why: `${host} could not be resolved (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
    };
  }
  const first = addresses[0];
  if (first === undefined) return { ok: false, why: `${host} has no address` };
  // The address classifier (ipaddr.js) is loaded on first use, as the resolver is.
  specialAddresses ??= import('../../authority/special-addresses.js');
  const { specialAddress } = await specialAddresses;
  const special = specialAddress(first.address);
  // Named by the operator, in the run's grant: never by a narrowed `net`, which a model can ask for.
  const isNamed =
    permitsNet(named, host, port).named || permitsNet(named, first.address, port).named;
  if (special !== undefined && !isNamed) {
    return {
      ok: false,
      why: `${host} resolves to ${first.address}, ${special}; only a net entry naming \`${host}\` or \`${first.address}\` exactly allows that`,
    };
  }
  return { ok: true, ...first };
}

/** The hosts `net` allows, in words. */
export function describeNet(net: Scope): string {
  if (net === 'all') return 'any public host';
  return net.length === 0 ? 'none' : net.join(', ');
}

/**
 * A connection's name lookup that answers with the address already checked: what pins an HTTP
 * request to it (TLS still verifies the certificate against the host name).
 */
export function pinnedLookup(address: string, family: 4 | 6): LookupFunction {
  return (_host, options, callback) => {
    if (options.all === true) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
}
