import { createServer, type Socket } from 'node:net';
import { sendPost } from '../intel/index.js';

/** A whole HTTP/1.1 response, closing the connection so no socket outlives the warm-up. */
const RESPONSE =
  'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}';

/** Longest the warm-up may take; past it the child goes on cold rather than wait. */
const WARM_HTTP_TIMEOUT_MS = 2_000;

/**
 * Makes one POST through the model client's HTTP transport to a throw-away server on the loopback
 * interface, so `node:http` is loaded and the transport's code has run once before a pooled child
 * is taken: its first model call then finds that done. Never throws: a machine without a usable
 * loopback only loses the head start.
 */
export async function warmHttp(): Promise<boolean> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.once('data', () => socket.end(RESPONSE));
    socket.on('error', () => undefined);
  });
  try {
    const port = await new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        const address = server.address();
        if (address === null || typeof address === 'string') reject(new Error('no port'));
        else resolve(address.port);
      });
    });
    const answer = await sendPost(`http://127.0.0.1:${String(port)}/v1/warm-up`, {
      headers: { 'content-type': 'application/json' },
      body: '{}',
      signal: AbortSignal.timeout(WARM_HTTP_TIMEOUT_MS),
    });
    let size = 0;
    for await (const chunk of answer.body) size += chunk.byteLength;
    return answer.status === 200 && size === 2;
  } catch {
    return false;
  } finally {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  }
}
