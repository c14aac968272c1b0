import { chmod } from 'node:fs/promises';
import type { Server, Socket } from 'node:net';

/**
 * A server listening on a Unix socket (mode 0600), with its connections tracked so that closing
 * it closes them too: `server.close` alone waits for every open connection to end.
 */
export class UnixListener {
  readonly path: string;
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();

  private constructor(server: Server, path: string) {
    this.#server = server;
    this.path = path;
    server.on('connection', (socket: Socket) => {
      this.#sockets.add(socket);
      socket.on('close', () => this.#sockets.delete(socket));
    });
  }

  static async listen(server: Server, path: string): Promise<UnixListener> {
    const listener = new UnixListener(server, path);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(path, () => {
        server.off('error', reject);
        // Listening, a server reports a failed accept (out of file descriptors, say) as an
        // error: that one connection is lost, and the server goes on listening.
        server.on('error', () => undefined);
        resolve();
      });
    });
    // Its directory (0700) already keeps others out; the socket says so too.
    await chmod(path, 0o600);
    return listener;
  }

  /** Stops listening and destroys every connection still open. */
  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) =>
      this.#server.close(() => {
        resolve();
      }),
    );
    for (const socket of this.#sockets) socket.destroy();
    await closed;
  }
}
