import { decodeSessionReply } from '../egress/index.js';

/**
 * One command's way out: a directory of Unix sockets the egress proxy made for it, bound to the
 * node's `net` — `proxy.sock` (an HTTP forward proxy with `CONNECT`) and one `fwd-<i>.sock` per
 * `host:port` entry (a raw TCP forward). It lives while `close` has not been called; closing it
 * tells the proxy the command ended, and the proxy reports the command's traffic.
 */
export interface EgressSession {
  dir: string;
  forwards: readonly EgressForward[];
  close(): void;
}

/** A `host:port` entry of `net` and the socket that reaches it. */
interface EgressForward {
  host: string;
  port: number;
  socket: string;
}

/** The longest answer the proxy's control socket may give to a session request. */
const MAX_REPLY_BYTES = 64 * 1024;
/** How long the proxy has to answer. */
const REPLY_TIMEOUT_MS = 5_000;

/**
 * Asks the node's egress proxy, over its control socket (outside every sandbox: only the child
 * reaches it), for a session for one command. Rejects with a one-line reason when the proxy
 * cannot be reached or answers something else.
 */
export async function openEgressSession(
  control: string,
  command: string,
  signal: AbortSignal,
): Promise<EgressSession> {
  const { createConnection } = await import('node:net');
  return new Promise<EgressSession>((resolve, reject) => {
    const socket = createConnection({ path: control });
    let buffered = '';
    let settled = false;
    const fail = (why: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      reject(new Error(why));
    };
    const timer = setTimeout(() => {
      fail(`the egress proxy did not answer within ${REPLY_TIMEOUT_MS} ms`);
    }, REPLY_TIMEOUT_MS);
    const onAbort = (): void => {
      fail('cancelled');
    };
    signal.addEventListener('abort', onAbort, { once: true });
    socket.setEncoding('utf8');
    socket.on('error', (error: NodeJS.ErrnoException) => {
      fail(`the egress proxy cannot be reached (${error.code ?? error.message})`);
    });
    socket.on('close', () => {
      signal.removeEventListener('abort', onAbort);
      fail('the egress proxy closed the session');
    });
    socket.on('data', (chunk: string) => {
      if (settled) return;
      buffered += chunk;
      if (buffered.length > MAX_REPLY_BYTES) {
        fail('the egress proxy answered too much');
        return;
      }
      const end = buffered.indexOf('\n');
      if (end < 0) return;
      const decoded = decodeSessionReply(buffered.slice(0, end));
      if (!decoded.ok) {
        fail('the egress proxy answered something that is not a session');
        return;
      }
      const reply = decoded.frame;
      if ('error' in reply) {
        fail(`the egress proxy refused a session: ${reply.error}`);
        return;
      }
      settled = true;
      clearTimeout(timer);
      resolve({
        dir: reply.dir,
        forwards: reply.forwards,
        close: () => {
          signal.removeEventListener('abort', onAbort);
          socket.end();
        },
      });
    });
    socket.write(`${JSON.stringify({ command })}\n`);
  });
}
