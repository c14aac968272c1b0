import { createServer, type Server, type Socket } from 'node:net';
import type { EgressForward } from './egress-control.js';
import type { LinkGate } from './egress-link.js';
import { connectUpstream, IDLE_MS, tunnel } from './tunnel.js';

/**
 * A session's `fwd-<i>.sock`: every connection is a raw TCP connection to one host and port,
 * checked on its own (a name that has started to resolve to loopback since the last one is
 * refused) and joined to the checked address. A refusal closes the connection; the `refused`
 * line says why.
 */
export function createTcpForward(gate: LinkGate, forward: EgressForward): Server {
  return createServer({ allowHalfOpen: true, pauseOnConnect: true }, (client) => {
    void forwardConnection(gate, forward, client);
  });
}

async function forwardConnection(
  gate: LinkGate,
  forward: EgressForward,
  client: Socket,
): Promise<void> {
  client.on('error', () => client.destroy());
  try {
    const admission = await gate.connect(forward.host, forward.port);
    if (!admission.ok || client.destroyed) {
      if (admission.ok) admission.link.end();
      client.destroy();
      return;
    }
    const { link } = admission;
    const upstream = connectUpstream(link, forward.port, client);
    upstream.setTimeout(IDLE_MS, () => {
      link.cut();
    });
    upstream.on('error', () => {
      link.cut();
    });
    upstream.once('connect', () => {
      tunnel(link, client, upstream);
      client.resume();
    });
  } catch {
    // Nothing above throws on purpose; whatever did, this connection is over.
    client.destroy();
  }
}
