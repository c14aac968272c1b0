import { connect, type Socket } from 'node:net';
import type { Readable, Writable } from 'node:stream';
import type { EgressLink } from './egress-link.js';

/** A tunnel with no bytes either way for this long is cut. */
export const IDLE_MS = 120_000;

/**
 * Copies `from` into `to`, counting each chunk before it is written: a chunk that would pass the
 * node's byte limit is not written (the count cuts the link instead). Backpressure holds: a full
 * `to` pauses `from`. The end of `from` ends `to`.
 */
export function pipeCounted(from: Readable, to: Writable, count: (bytes: number) => boolean): void {
  from.on('data', (chunk: Buffer) => {
    if (!count(chunk.length)) return;
    if (!to.write(chunk)) from.pause();
  });
  to.on('drain', () => from.resume());
  from.on('end', () => to.end());
}

/**
 * Joins the command's socket and the upstream one, both ways, under the link: bytes counted,
 * idle sockets cut, an error on either side cuts both, and the link ends once both have closed.
 */
export function tunnel(link: EgressLink, client: Socket, upstream: Socket): void {
  link.hold(client, upstream);
  let open = 2;
  for (const socket of [client, upstream]) {
    socket.setTimeout(IDLE_MS);
    socket.on('timeout', () => {
      link.cut();
    });
    socket.on('error', () => {
      link.cut();
    });
    socket.on('close', () => {
      open -= 1;
      if (open === 0) link.end();
    });
  }
  // A side that closed without ending (destroyed, say) leaves the other nothing to say.
  client.on('close', () => upstream.end());
  upstream.on('close', () => client.end());
  pipeCounted(client, upstream, (bytes) => link.up(bytes));
  pipeCounted(upstream, client, (bytes) => link.down(bytes));
}

/**
 * A connection to the address `link` checked, held by the link with the command's `client`: when
 * the command goes away, before or after the tunnel stands, the link is cut.
 */
export function connectUpstream(link: EgressLink, port: number, client: Socket): Socket {
  const upstream = connect({
    host: link.address,
    port,
    family: link.family,
    allowHalfOpen: true,
  });
  link.hold(client, upstream);
  client.once('close', () => {
    link.cut();
  });
  return upstream;
}
