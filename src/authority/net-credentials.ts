import type { NetCredential, Scope } from '../protocol/index.js';
import { normalizeHost, parseNetEntry, permitsNet } from './net-scope.js';

/**
 * The credentials a node whose grant is `net` may hold: those of a host (and port) it may reach.
 * A child whose narrowed `net` leaves a host out is never given that host's credential, so no
 * payload carries a secret its node could not use. A credential for any port of its host is kept
 * when `net` allows the host on some port: an entry without a port (then 443 will do), or one
 * with its own port.
 */
export function narrowNetCredentials(
  net: Scope,
  credentials: readonly NetCredential[],
): NetCredential[] {
  return credentials.filter((credential) => {
    if (credential.port !== undefined)
      return permitsNet(net, credential.host, credential.port).allowed;
    if (net === 'all') return true;
    const ports = new Set([443]);
    for (const entry of net.map(parseNetEntry))
      if (typeof entry !== 'string' && entry.port !== undefined) ports.add(entry.port);
    return [...ports].some((port) => permitsNet(net, credential.host, port).allowed);
  });
}

/**
 * The credentials of one request: those whose host is the request's exactly (no wildcard, no
 * parent domain) and whose port, when they name one, is the request's.
 */
export function credentialsFor(
  credentials: readonly NetCredential[],
  host: string,
  port: number,
): NetCredential[] {
  const target = normalizeHost(host);
  if (target === undefined) return [];
  return credentials.filter(
    (credential) =>
      credential.host === target && (credential.port === undefined || credential.port === port),
  );
}
