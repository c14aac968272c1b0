import { mkdtemp, rm } from 'node:fs/promises';
import {
  createServer as createHttpServer,
  request,
  type IncomingHttpHeaders,
  type Server as HttpServer,
} from 'node:http';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  EgressProxy,
  decodeSessionReply,
  type EgressOpen,
  type EgressReport,
} from '../../src/tools/egress/index.js';

/** Every line an `EgressProxy` reported, and a way to wait for one. */
export class ReportLog {
  readonly lines: EgressReport[] = [];
  #waiters: { match: (line: EgressReport) => boolean; resolve: (line: EgressReport) => void }[] =
    [];

  add(line: EgressReport): void {
    this.lines.push(line);
    for (const waiter of this.#waiters.filter((w) => w.match(line))) waiter.resolve(line);
    this.#waiters = this.#waiters.filter((w) => !w.match(line));
  }

  /** The first line (already reported, or still to come) of this type that `match` accepts. */
  waitFor<T extends EgressReport['type']>(
    type: T,
    match: (line: Extract<EgressReport, { type: T }>) => boolean = () => true,
  ): Promise<Extract<EgressReport, { type: T }>> {
    const accepts = (line: EgressReport): line is Extract<EgressReport, { type: T }> =>
      line.type === type && match(line as Extract<EgressReport, { type: T }>);
    const seen = this.lines.find(accepts);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve) => {
      this.#waiters.push({ match: accepts, resolve: resolve as (line: EgressReport) => void });
    });
  }

  of<T extends EgressReport['type']>(type: T): Extract<EgressReport, { type: T }>[] {
    return this.lines.filter(
      (line): line is Extract<EgressReport, { type: T }> => line.type === type,
    );
  }
}

/** An in-process proxy, its reports, and a scratch directory for its nodes. */
export interface ProxyRig {
  proxy: EgressProxy;
  reports: ReportLog;
  base: string;
  /** Opens a node `n<k>` under `base` (defaults: net `all`, nothing named, generous limits). */
  open(request?: Partial<Omit<EgressOpen, 'type'>>): Promise<EgressOpen>;
  dispose(): Promise<void>;
}

export async function proxyRig(
  options: Partial<ConstructorParameters<typeof EgressProxy>[0]> = {},
): Promise<ProxyRig> {
  const reports = new ReportLog();
  const proxy = new EgressProxy({
    ...options,
    onReport: (line) => {
      reports.add(line);
    },
  });
  const base = await mkdtemp(join(tmpdir(), 'egress-'));
  let count = 0;
  return {
    proxy,
    reports,
    base,
    async open(request = {}) {
      count += 1;
      const open: EgressOpen = {
        type: 'open',
        node: `n${count}`,
        dir: join(base, `n${count}`),
        net: 'all',
        named: [],
        forwards: [],
        limits: { max_connections: 16, max_bytes: 10_000_000 },
        ...request,
      };
      const answer = await proxy.open(open);
      if (answer.type !== 'opened') throw new Error(`open failed: ${JSON.stringify(answer)}`);
      return open;
    },
    async dispose() {
      await proxy.closeAll();
      await rm(base, { recursive: true, force: true });
    },
  };
}

/** A session asked for on `control.sock`: its answer, and its control connection. */
export interface SessionClient {
  dir: string;
  proxySock: string;
  forwards: { host: string; port: number; socket: string }[];
  /** Ends the session: closes the control connection. */
  close(): void;
}

/** Asks `control.sock` for a session; the raw answer line, parsed. */
export async function requestSession(
  controlSock: string,
  line: string,
): Promise<{ answer: ReturnType<typeof decodeSessionReply>; socket: Socket }> {
  const socket = connect(controlSock);
  socket.write(line);
  const text = await new Promise<string>((resolve, reject) => {
    let buffered = '';
    socket.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const newline = buffered.indexOf('\n');
      if (newline >= 0) resolve(buffered.slice(0, newline));
    });
    socket.on('error', reject);
    socket.on('close', () => {
      reject(new Error(`control.sock closed after ${JSON.stringify(buffered)}`));
    });
  });
  return { answer: decodeSessionReply(text), socket };
}

export async function openSession(nodeDir: string, command = 'true'): Promise<SessionClient> {
  const { answer, socket } = await requestSession(
    join(nodeDir, 'control.sock'),
    `${JSON.stringify({ command })}\n`,
  );
  if (!answer.ok || 'error' in answer.frame)
    throw new Error(`no session: ${JSON.stringify(answer)}`);
  const { dir, forwards } = answer.frame;
  return { dir, proxySock: join(dir, 'proxy.sock'), forwards, close: () => socket.end() };
}

export interface ProxyAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** One absolute-form request through `proxy.sock`. */
export function proxyRequest(
  proxySock: string,
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<ProxyAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        socketPath: proxySock,
        path: url,
        method: options.method ?? 'GET',
        headers: options.headers,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** `CONNECT authority` through `proxy.sock`: the status, and the socket (or the refusal's body). */
export function proxyConnect(
  proxySock: string,
  authority: string,
): Promise<{ status: number; headers: IncomingHttpHeaders; socket: Socket; head: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request({
      socketPath: proxySock,
      method: 'CONNECT',
      path: authority,
      agent: false,
    });
    req.on('connect', (res, socket: Socket, head: Buffer) => {
      resolve({ status: res.statusCode ?? 0, headers: res.headers, socket, head });
    });
    req.on('error', reject);
    req.end();
  });
}

/** Everything a socket still sends, until it ends. */
export function readAll(socket: Socket, head: Buffer = Buffer.alloc(0)): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [head];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      resolve(Buffer.concat(chunks).toString('utf8'));
    });
  });
}

/** Writes `text` and waits until as many bytes have come back. */
export function echoRoundTrip(socket: Socket, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let got = '';
    const onData = (chunk: Buffer): void => {
      got += chunk.toString('utf8');
      if (got.length >= text.length) {
        socket.off('data', onData);
        resolve(got);
      }
    };
    socket.on('data', onData);
    socket.once('close', () => {
      reject(new Error(`closed after ${got.length} bytes`));
    });
    socket.write(text);
  });
}

/** A local HTTP server: `/hello` answers text; every request's headers are kept. */
export interface LocalHttp {
  port: number;
  seen: IncomingHttpHeaders[];
  close(): Promise<void>;
}

export async function localHttp(host = '127.0.0.1'): Promise<LocalHttp> {
  const seen: IncomingHttpHeaders[] = [];
  const server: HttpServer = createHttpServer((req, res) => {
    seen.push(req.headers);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.url === '/hello') {
        res.writeHead(200, {
          'content-type': 'text/plain',
          'set-cookie': ['a=1', 'b=2'],
          connection: 'close, x-hop',
          'x-hop': 'drop me',
        });
        res.end('hello there');
      } else if (req.url === '/echo') {
        res.writeHead(200, { 'content-type': 'text/plain' }).end(Buffer.concat(chunks));
      } else res.writeHead(404).end('no route');
    });
  });
  await listen(server, host);
  return {
    port: (server.address() as AddressInfo).port,
    seen,
    close: () =>
      closeServer(server, () => {
        server.closeAllConnections();
      }),
  };
}

/** A local TCP echo server. */
export interface LocalEcho {
  port: number;
  close(): Promise<void>;
}

export async function localEcho(host = '127.0.0.1'): Promise<LocalEcho> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    socket.pipe(socket);
  });
  await listen(server, host);
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      closeServer(server, () => {
        for (const socket of sockets) socket.destroy();
      }),
  };
}

function listen(server: Server, host: string): Promise<void> {
  return new Promise((resolve) => server.listen(0, host, resolve));
}

function closeServer(server: Server, drop: () => void): Promise<void> {
  drop();
  return new Promise((resolve) =>
    server.close(() => {
      resolve();
    }),
  );
}
