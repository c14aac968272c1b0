import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer as createHttpServer, request, type RequestOptions } from 'node:http';
import {
  connect,
  createServer,
  type AddressInfo,
  type NetConnectOpts,
  type Server,
  type Socket,
} from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import {
  decodeEgressReport,
  type EgressOpen,
  type EgressReport,
} from '../src/tools/egress/index.js';

/**
 * The egress benchmark's parts: the local servers the traffic goes to, the proxy as its own
 * process, and the client's side of each way to reach a server (directly, through `proxy.sock`,
 * through a `fwd-<i>.sock`).
 */

/**
 * CPU time a process has had, in milliseconds, to the nanosecond: the sum over its threads of
 * `/proc/PID/task/TID/schedstat`'s first field. (`/proc/PID/stat` counts in clock ticks of
 * 10 ms, too coarse for a connection's share.)
 */
export function cpuMs(pid: number): number {
  let ns = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`))
    ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
  return ns / 1e6;
}

/** What the bulk server and the clients write: one buffer, sent again and again. */
const CHUNK = Buffer.alloc(64 * 1024, 0x61);

/** A server on 127.0.0.1 and how to stop it. */
export interface LocalServer {
  port: number;
  close(): Promise<void>;
}

/** An HTTP server answering every request with a short text (`ok`). */
export function smallHttpServer(): Promise<LocalServer> {
  const server = createHttpServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': 2 }).end('ok');
    });
  });
  return listenLocal(server, () => {
    server.closeAllConnections();
  });
}

/** A TCP echo server: each connection gets back what it sends. */
export function echoServer(): Promise<LocalServer> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    socket.pipe(socket);
  });
  return listenLocal(server, () => {
    for (const socket of sockets) socket.destroy();
  });
}

/**
 * A TCP bulk server. A connection starts with one line: `down N` has it send N bytes and end;
 * `up N` has it read N bytes and answer one byte, `k`.
 */
export function bulkServer(): Promise<LocalServer> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    let header = '';
    let left: number | undefined;
    socket.on('data', (chunk: Buffer) => {
      if (left === undefined) {
        // latin1 keeps one character per byte, so what follows the line is counted exactly.
        header += chunk.toString('latin1');
        const newline = header.indexOf('\n');
        if (newline < 0) return;
        const [mode, count] = header.slice(0, newline).split(' ');
        const bytes = Number(count);
        if (mode === 'down') {
          sendBytes(socket, bytes);
          return;
        }
        left = bytes - (header.length - newline - 1);
      } else left -= chunk.length;
      if (left <= 0) socket.end('k');
    });
  });
  return listenLocal(server, () => {
    for (const socket of sockets) socket.destroy();
  });
}

/** Writes `total` bytes to `socket`, holding back while it is full, then ends it. */
function sendBytes(socket: Socket, total: number): void {
  let left = total;
  const pump = (): void => {
    while (left > 0) {
      const size = Math.min(left, CHUNK.length);
      left -= size;
      if (!socket.write(size === CHUNK.length ? CHUNK : CHUNK.subarray(0, size))) {
        socket.once('drain', pump);
        return;
      }
    }
    socket.end();
  };
  pump();
}

async function listenLocal(server: Server, drop: () => void): Promise<LocalServer> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      drop();
      server.close();
      await once(server, 'close');
    },
  };
}

/** One GET with a connection of its own; `socketPath` set, it goes through an HTTP proxy. */
export function getOnce(options: RequestOptions): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request({ ...options, agent: false }, (res) => {
      if (res.statusCode !== 200) reject(new Error(`GET ${options.path ?? ''}: ${res.statusCode}`));
      res.resume();
      res.on('end', resolve);
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** A connected socket, to a TCP port or a Unix socket. */
export function dial(options: NetConnectOpts): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(options, () => {
      socket.off('error', reject);
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

/**
 * A tunnel to `authority` through `proxy.sock`: `CONNECT`, read up to the end of the `200`
 * answer, and the socket is the tunnel's (paused: the caller resumes it).
 */
export function tunnel(proxySock: string, authority: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(proxySock);
    let head = '';
    const onData = (chunk: Buffer): void => {
      head += chunk.toString('latin1');
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      socket.pause();
      socket.off('data', onData);
      socket.off('error', reject);
      // The servers speak only when spoken to: nothing of theirs can follow the answer yet.
      if (!head.startsWith('HTTP/1.1 200 ') || end + 4 !== head.length) {
        socket.destroy();
        reject(new Error(`CONNECT ${authority} answered ${JSON.stringify(head)}`));
        return;
      }
      resolve(socket);
    };
    socket.on('data', onData);
    socket.once('error', reject);
    socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`);
  });
}

/** Writes one byte and waits for the first byte back (from the echo server). */
export function firstByteBack(socket: Socket): Promise<void> {
  return new Promise((resolve, reject) => {
    socket.once('data', () => {
      resolve();
    });
    socket.once('error', reject);
    socket.once('close', () => {
      reject(new Error('the connection closed before a byte came back'));
    });
    socket.resume();
    socket.write('x');
  });
}

/** Asks the bulk server for `bytes` and reads them all. */
export function download(socket: Socket, bytes: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let got = 0;
    socket.on('data', (chunk: Buffer) => {
      got += chunk.length;
      if (got >= bytes) resolve();
    });
    socket.once('error', reject);
    socket.once('close', () => {
      if (got < bytes) reject(new Error(`download closed after ${got} of ${bytes} bytes`));
    });
    socket.resume();
    socket.write(`down ${bytes}\n`);
  });
}

/** Sends `bytes` to the bulk server, as fast as the socket takes them, until it answers `k`. */
export async function upload(socket: Socket, bytes: number): Promise<void> {
  const answered = new Promise<void>((resolve, reject) => {
    socket.once('data', () => {
      resolve();
    });
    socket.once('error', reject);
    socket.once('close', () => {
      reject(new Error('upload closed before the server answered'));
    });
  });
  socket.resume();
  socket.write(`up ${bytes}\n`);
  for (let left = bytes; left > 0; left -= CHUNK.length) {
    const chunk = left >= CHUNK.length ? CHUNK : CHUNK.subarray(0, left);
    if (!socket.write(chunk)) await Promise.race([once(socket, 'drain'), answered]);
  }
  await answered;
}

/**
 * The egress proxy as the supervisor runs it (`src/supervisor/launch/egress-host.ts`): its own
 * process with an empty environment, control lines on stdin, reports on stdout. It runs from this
 * benchmark's build (`dist-bench/`), the same sources as `dist/tools/egress/proxy-main.js`.
 */
export class ProxyProcess {
  readonly #child: ChildProcessWithoutNullStreams;
  readonly #lines: EgressReport[] = [];
  #wake: (() => void) | undefined;

  constructor() {
    const main = fileURLToPath(new URL('../src/tools/egress/proxy-main.js', import.meta.url));
    this.#child = spawn(process.execPath, [main], { env: {}, stdio: 'pipe' });
    this.#child.stderr.pipe(process.stderr);
    createInterface({ input: this.#child.stdout }).on('line', (text) => {
      const decoded = decodeEgressReport(text, this.#lines.length + 1);
      if (!decoded.ok)
        throw new Error(`the egress proxy wrote a line that is not a report: ${text}`);
      this.#lines.push(decoded.frame);
      this.#wake?.();
    });
  }

  get pid(): number {
    const { pid } = this.#child;
    if (pid === undefined) throw new Error('the egress proxy process did not start');
    return pid;
  }

  /** Opens a node; rejects with the proxy's answer when it is not `opened`. */
  async open(request: EgressOpen): Promise<void> {
    this.#child.stdin.write(`${JSON.stringify(request)}\n`);
    const answer = await this.#next();
    if (answer.type !== 'opened') throw new Error(`open failed: ${JSON.stringify(answer)}`);
  }

  /** Closes a node: every line reported since it opened, up to the `closed` answer. */
  async close(node: string): Promise<EgressReport[]> {
    const reports: EgressReport[] = [];
    this.#child.stdin.write(`${JSON.stringify({ type: 'close', node })}\n`);
    for (;;) {
      const line = await this.#next();
      if (line.type === 'closed') return reports;
      reports.push(line);
    }
  }

  /** Ends stdin, as the supervisor does, and waits for the process to exit. */
  async stop(): Promise<void> {
    const exited = once(this.#child, 'exit');
    this.#child.stdin.end();
    await exited;
  }

  async #next(): Promise<EgressReport> {
    for (;;) {
      const line = this.#lines.shift();
      if (line !== undefined) return line;
      await new Promise<void>((resolve) => (this.#wake = resolve));
    }
  }
}
