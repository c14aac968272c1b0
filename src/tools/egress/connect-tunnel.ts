import type { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { LinkGate } from './egress-link.js';
import { connectTarget, formatTarget, type RequestTarget } from './request-target.js';
import { connectUpstream, IDLE_MS, tunnel } from './tunnel.js';

/** The header that marks a refusal by this proxy, not by the host. */
export const REFUSED_HEADER = 'x-arbor-egress';

/** The one-line body of a refusal. */
export function refusalText(target: RequestTarget, why: string): string {
  return `arbor egress: refused ${formatTarget(target)}: ${why}\n`;
}

/**
 * `CONNECT host:port`: checked like any connection, then joined to the checked address and
 * answered `200 Connection Established`; from there the bytes are the tunnel's. A refusal is a
 * 403 with the reason, then the socket ends.
 */
export async function openTunnel(
  gate: LinkGate,
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
): Promise<void> {
  // A `CONNECT` request's socket is always a `net.Socket` (it has timeouts, the tunnel needs them).
  if (!(socket instanceof Socket)) {
    socket.destroy();
    return;
  }
  const client = socket;
  client.on('error', () => client.destroy());
  try {
    const target = connectTarget(req.url ?? '');
    if (typeof target === 'string') {
      endWith(client, '400 Bad Request', `arbor egress: ${target}\n`);
      return;
    }
    const admission = await gate.connect(target.host, target.port);
    if (!admission.ok) {
      endWith(client, '403 Forbidden', refusalText(target, admission.why), true);
      return;
    }
    const { link } = admission;
    if (client.destroyed) {
      link.end();
      return;
    }
    const upstream = connectUpstream(link, target.port, client);
    upstream.setTimeout(IDLE_MS, () =>
      upstream.destroy(Object.assign(new Error(), { code: 'ETIMEDOUT' })),
    );
    upstream.on('error', (error: NodeJS.ErrnoException) => {
      if (link.isEnded) return;
      link.end();
      endWith(
        client,
        '502 Bad Gateway',
        `arbor egress: ${formatTarget(target)} failed: ${error.code ?? error.message}\n`,
      );
    });
    upstream.once('connect', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      // Bytes the command sent right behind its request belong to the tunnel.
      if (head.length > 0) {
        if (!link.up(head.length)) return;
        upstream.write(head);
      }
      tunnel(link, client, upstream);
    });
  } catch {
    // Nothing above throws on purpose; whatever did, this tunnel is over.
    client.destroy();
  }
}

/** Answers with a status line and a text body on the raw socket, then ends it. */
function endWith(socket: Socket, status: string, body: string, refused = false): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  socket.end(
    `HTTP/1.1 ${status}\r\n${refused ? 'X-Arbor-Egress: refused\r\n' : ''}` +
      `Content-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `Connection: close\r\n\r\n${body}`,
  );
}
