import type { IncomingHttpHeaders } from 'node:http';
import { pinnedLookup } from '../egress/egress-policy.js';

/** One HTTP exchange with the address already chosen and checked. */
export interface PinnedRequest {
  url: URL;
  /** The resolved address to connect to: the one that was checked, never looked up again. */
  address: string;
  family: 4 | 6;
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
  /** Largest response body kept, in bytes; the rest is not read. */
  maxBytes: number;
  signal: AbortSignal;
}

export interface PinnedResponse {
  status: number;
  statusText: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The body went on past `maxBytes` and was cut. */
  truncated: boolean;
}

/**
 * Sends one request to a pinned address: the connection's name lookup answers with the address
 * that was checked, so a name cannot resolve to one address for the check and another for the
 * connection (DNS rebinding). TLS still verifies the certificate against the host name. Proxies
 * from the environment are not used. Redirects are the caller's: each hop is checked again.
 */
export async function fetchPinned(request: PinnedRequest): Promise<PinnedResponse> {
  const { url } = request;
  const https = url.protocol === 'https:';
  const transport = https ? await import('node:https') : await import('node:http');
  return new Promise<PinnedResponse>((resolve, reject) => {
    const req = transport.request(
      {
        protocol: url.protocol,
        hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
        port: url.port === '' ? (https ? 443 : 80) : Number(url.port),
        path: `${url.pathname}${url.search}`,
        method: request.method,
        headers: request.headers,
        lookup: pinnedLookup(request.address, request.family),
        agent: false,
        signal: request.signal,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        let truncated = false;
        res.on('data', (chunk: Buffer) => {
          if (truncated) return;
          const room = request.maxBytes - size;
          if (chunk.length > room) {
            chunks.push(chunk.subarray(0, room));
            size += room;
            truncated = true;
            // Enough has been read: stop the transfer instead of draining the rest.
            res.destroy();
            finish();
            return;
          }
          chunks.push(chunk);
          size += chunk.length;
        });
        let done = false;
        const finish = (): void => {
          if (done) return;
          done = true;
          resolve({
            status: res.statusCode ?? 0,
            statusText: res.statusMessage ?? '',
            headers: res.headers,
            body: Buffer.concat(chunks),
            truncated,
          });
        };
        res.on('end', finish);
        res.on('error', (error) => {
          if (!truncated) reject(error);
        });
      },
    );
    req.on('error', reject);
    req.end(request.body);
  });
}
