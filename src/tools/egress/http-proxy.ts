import {
  createServer,
  request as httpRequest,
  type ClientRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { Duplex } from 'node:stream';
import { openTunnel, refusalText, REFUSED_HEADER } from './connect-tunnel.js';
import type { EgressLink, LinkGate } from './egress-link.js';
import { pinnedLookup } from './egress-policy.js';
import { absoluteTarget, formatTarget, type HttpTarget } from './request-target.js';
import { IDLE_MS, pipeCounted } from './tunnel.js';

/** A request's headers must all arrive within this time. */
const HEADERS_TIMEOUT_MS = 15_000;
/** A whole request, body included, must arrive within this time. */
const REQUEST_TIMEOUT_MS = 300_000;

/**
 * Headers that belong to one connection, not to the request or response: never passed on. The
 * proxy's own (`Proxy-Authorization`, `Proxy-Connection`) go too, and `Expect`, which this proxy
 * answers itself.
 */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'expect',
]);

/**
 * A session's `proxy.sock`: an HTTP forward proxy. `CONNECT host:port` opens a tunnel
 * (`connect-tunnel.ts`); an absolute-form `http://` request is forwarded to the checked address;
 * anything else is answered 400. Every handler catches its own failures: hostile input ends a
 * connection, never the proxy.
 */
export function createHttpProxy(gate: LinkGate): Server {
  const server = createServer(
    { headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS },
    (req, res) => void forwardRequest(gate, req, res),
  );
  server.setTimeout(IDLE_MS);
  server.on('connect', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    void openTunnel(gate, req, socket, head);
  });
  server.on('upgrade', (_req: IncomingMessage, socket: Duplex) => {
    endRaw(socket, 'protocol upgrades are not forwarded; use CONNECT host:port');
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    endRaw(socket, `bad request (${error.code ?? error.message})`);
  });
  return server;
}

/** Answers 400 on a raw socket, then closes it. */
function endRaw(socket: Duplex, why: string): void {
  socket.on('error', () => socket.destroy());
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const body = `arbor egress: ${why}\n`;
  socket.end(
    `HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    () => socket.destroy(),
  );
}

async function forwardRequest(
  gate: LinkGate,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  try {
    const target = absoluteTarget(req.url ?? '');
    if (typeof target === 'string') {
      answer(res, 400, `arbor egress: ${target}\n`);
      return;
    }
    const admission = await gate.connect(target.host, target.port);
    if (!admission.ok) {
      answer(res, 403, refusalText(target, admission.why), { [REFUSED_HEADER]: 'refused' });
      return;
    }
    relay(admission.link, target, req, res);
  } catch {
    // Nothing above throws on purpose; whatever did, this exchange is over.
    res.destroy();
  }
}

/** Sends the request to the link's address and the answer back, bodies streamed and counted. */
function relay(link: EgressLink, target: HttpTarget, req: IncomingMessage, res: ServerResponse) {
  let upstream: ClientRequest;
  try {
    upstream = httpRequest({
      host: target.host,
      port: target.port,
      method: req.method ?? 'GET',
      path: target.path,
      headers: requestHeaders(req.headers, target),
      lookup: pinnedLookup(link.address, link.family),
      agent: false,
      setHost: false,
    });
  } catch (error) {
    link.end();
    answer(res, 400, `arbor egress: the request cannot be forwarded (${describe(error)})\n`);
    return;
  }
  link.hold(upstream, res);
  upstream.setTimeout(IDLE_MS, () => upstream.destroy(codedError('ETIMEDOUT')));
  pipeCounted(req, upstream, (bytes) => link.up(bytes));
  upstream.on('response', (incoming) => {
    link.hold(incoming);
    try {
      res.writeHead(
        incoming.statusCode ?? 502,
        incoming.statusMessage,
        responseHeaders(incoming.rawHeaders),
      );
    } catch {
      link.cut();
      return;
    }
    pipeCounted(incoming, res, (bytes) => link.down(bytes));
    incoming.on('error', () => {
      link.cut();
    });
  });
  upstream.on('error', (error) => {
    if (link.isEnded) return;
    if (res.headersSent) link.cut();
    else {
      link.end();
      answer(res, 502, `arbor egress: ${formatTarget(target)} failed: ${describe(error)}\n`);
    }
  });
  res.on('close', () => {
    if (!res.writableFinished) upstream.destroy();
    link.end();
  });
}

/** A short plain-text answer; a response already under way is cut instead. */
function answer(
  res: ServerResponse,
  status: number,
  text: string,
  headers: OutgoingHttpHeaders = {},
): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res
    .writeHead(status, {
      ...headers,
      'content-type': 'text/plain; charset=utf-8',
      'content-length': Buffer.byteLength(text),
    })
    .end(text);
}

/** The request's headers, less the hop-by-hop ones, with `Host` from the URL. */
function requestHeaders(headers: IncomingHttpHeaders, target: HttpTarget): OutgoingHttpHeaders {
  const dropped = connectionTokens(headers.connection);
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || dropped.has(name)) continue;
    out[name] = value;
  }
  out.host = target.authority;
  // The body was framed for this hop; re-framed in chunks for the next unless its length is known.
  if (headers['transfer-encoding'] !== undefined && headers['content-length'] === undefined)
    out['transfer-encoding'] = 'chunked';
  return out;
}

/** The response's raw headers (repeats kept, as `Set-Cookie` needs), less the hop-by-hop ones. */
function responseHeaders(raw: readonly string[]): string[] {
  const names: string[] = [];
  for (let i = 0; i < raw.length; i += 2)
    if ((raw[i] ?? '').toLowerCase() === 'connection') names.push(raw[i + 1] ?? '');
  const dropped = connectionTokens(names.join(','));
  const out: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = (raw[i] ?? '').toLowerCase();
    if (HOP_BY_HOP.has(name) || dropped.has(name)) continue;
    out.push(raw[i] ?? '', raw[i + 1] ?? '');
  }
  return out;
}

/** The header names a `Connection` header lists: hop-by-hop for this connection too. */
function connectionTokens(value: string | undefined): Set<string> {
  if (value === undefined) return new Set();
  return new Set(value.split(',').map((token) => token.trim().toLowerCase()));
}

function codedError(code: string): Error {
  return Object.assign(new Error(code), { code });
}

function describe(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code ?? (error instanceof Error ? error.message : String(error));
}
