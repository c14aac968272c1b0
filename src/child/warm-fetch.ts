import { createServer, type Socket } from 'node:net';

/** A whole HTTP/1.1 response, closing the connection so no socket outlives the warm-up. */
const RESPONSE =
  'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}';

/** Longest the warm-up may take; past it the child goes on cold rather than wait. */
const WARM_FETCH_TIMEOUT_MS = 2_000;

/**
 * Makes one `fetch` POST to a throw-away server on the loopback interface. Node loads its HTTP
 * client (undici) on the first `fetch` and compiles its WebAssembly response parser on the first
 * connection; together about 75–110 ms on a small machine, which a child would otherwise pay on its
 * first model call. A child waiting in a pool pays it before it is taken. Never throws: a machine
 * without a usable loopback only loses the head start.
 */
export async function warmFetch(): Promise<boolean> {
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
    const response = await fetch(`http://127.0.0.1:${String(port)}/v1/warm-up`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
      redirect: 'manual',
      signal: AbortSignal.timeout(WARM_FETCH_TIMEOUT_MS),
    });
    await response.text();
    return response.ok;
  } catch {
    return false;
  } finally {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  }
}
