import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { AttemptFailure, classifyTransportError } from '../../src/intel/attempt-failure.js';
import { postJson, readText } from '../../src/intel/http-exchange.js';
import { parseRateLimitHeaders, sendPost, type HeaderReader } from '../../src/intel/index.js';
import { refusedUrl } from '../helpers/intel.js';

/** A real `node:http` server on the loopback interface, recording what reached it. */
interface LocalServer {
  url: string;
  requests: { method: string; url: string; body: string }[];
  /** Connections accepted, and how many of them have closed. */
  connections: { opened: number; closed: number };
  server: Server;
}

const servers: Server[] = [];

afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise((resolve) => {
          server.closeAllConnections();
          server.close(resolve);
        }),
    ),
  );
});

async function listen(
  server: Server,
  scheme: 'http' | 'https' = 'http',
): Promise<Omit<LocalServer, 'requests' | 'server'> & { server: Server }> {
  servers.push(server);
  const connections = { opened: 0, closed: 0 };
  server.on('connection', (socket) => {
    connections.opened++;
    socket.once('close', () => connections.closed++);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `${scheme}://127.0.0.1:${port}/v1/chat`, connections, server };
}

/** Serves with `handle`, once each request's body has been read. */
async function serve(
  handle: (request: IncomingMessage, response: ServerResponse) => void,
): Promise<LocalServer> {
  const requests: LocalServer['requests'] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      requests.push({
        method: request.method ?? '',
        url: request.url ?? '',
        body: Buffer.concat(chunks).toString('utf8'),
      });
      handle(request, response);
    });
  });
  return { ...(await listen(server)), requests };
}

function post(url: string, signal: AbortSignal = new AbortController().signal) {
  return sendPost(url, { headers: { 'content-type': 'application/json' }, body: '{}', signal });
}

/** A promise and the function that settles it, to wait on a condition instead of a timer. */
function signalled<T = void>(): { promise: Promise<T>; settle: (value: T) => void } {
  let settle!: (value: T) => void;
  const promise = new Promise<T>((resolve) => (settle = resolve));
  return { promise, settle };
}

describe('the HTTP transport of the model clients, over real sockets', () => {
  it('POSTs the body and hands the body over chunk by chunk, as it arrives', async () => {
    const firstRead = signalled();
    const local = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: one\n\n');
      // The second chunk is only written once the client has read the first.
      void firstRead.promise.then(() => response.end('data: two\n\n'));
    });
    const answer = await post(local.url);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('Content-Type')).toBe('text/event-stream');
    const chunks = answer.body[Symbol.asyncIterator]();
    const first = await chunks.next();
    expect(Buffer.from(first.value as Uint8Array).toString()).toBe('data: one\n\n');
    firstRead.settle();
    const second = await chunks.next();
    expect(Buffer.from(second.value as Uint8Array).toString()).toBe('data: two\n\n');
    expect((await chunks.next()).done).toBe(true);
    expect(local.requests).toEqual([{ method: 'POST', url: '/v1/chat', body: '{}' }]);
  });

  it('keeps the connection alive between requests', async () => {
    const local = await serve((_request, response) => response.end('{"ok":true}'));
    for (let i = 0; i < 3; i++) {
      await expect(readText(await post(local.url), 100)).resolves.toEqual({
        text: '{"ok":true}',
        truncated: false,
      });
    }
    expect(local.requests).toHaveLength(3);
    expect(local.connections.opened).toBe(1);
  });

  it('rejects with the signal’s reason when aborted while waiting for headers, and hangs up', async () => {
    const arrived = signalled();
    const local = await serve(() => {
      arrived.settle();
    });
    const controller = new AbortController();
    const pending = post(local.url, controller.signal);
    await arrived.promise;
    const reason = new AttemptFailure('timeout', 'no answer within 5 ms');
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    await expect.poll(() => local.connections.closed).toBe(1);
  });

  it('ends the body with the signal’s reason when aborted while reading it', async () => {
    const local = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: one\n\n');
    });
    const controller = new AbortController();
    const answer = await post(local.url, controller.signal);
    const chunks = answer.body[Symbol.asyncIterator]();
    expect((await chunks.next()).done).toBe(false);
    const reason = new AttemptFailure('cancelled', 'the attempt was abandoned');
    controller.abort(reason);
    await expect(chunks.next()).rejects.toBe(reason);
    await expect.poll(() => local.connections.closed).toBe(1);
  });

  it('honours an abort during the connect (a TLS handshake that never completes)', async () => {
    // A TCP server that accepts and never says a word: the client's handshake waits for ever.
    const silent = createTcpServer(() => undefined);
    const sockets: Socket[] = [];
    silent.on('connection', (socket) => {
      sockets.push(socket);
      // Read (and drop) what comes, so the server sees the client hang up.
      socket.resume();
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = silent.address() as AddressInfo;
      const controller = new AbortController();
      const pending = post(`https://127.0.0.1:${port}/v1/chat`, controller.signal);
      await expect.poll(() => sockets.length).toBe(1);
      const reason = new AttemptFailure('timeout', 'no answer within 5 ms');
      controller.abort(reason);
      await expect(pending).rejects.toBe(reason);
      await expect.poll(() => sockets[0]?.destroyed).toBe(true);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('sends nothing once the signal has been aborted', async () => {
    const local = await serve((_request, response) => response.end());
    const reason = new AttemptFailure('cancelled', 'the caller gave up');
    await expect(post(local.url, AbortSignal.abort(reason))).rejects.toBe(reason);
    expect(local.connections.opened).toBe(0);
  });

  it('stops reading past a limit and closes the connection instead of draining it', async () => {
    const local = await serve((_request, response) => {
      response.writeHead(500);
      response.write('x'.repeat(64 * 1024));
      // …and never ends: a reader that drained the body would wait forever.
    });
    const read = await readText(await post(local.url), 1024);
    expect(read).toEqual({ text: 'x'.repeat(1024), truncated: true });
    await expect.poll(() => local.connections.closed).toBe(1);
  });

  it('decodes a compressed body, as fetch did', async () => {
    const local = await serve((_request, response) => {
      response.writeHead(200, { 'content-encoding': 'gzip' });
      response.end(gzipSync('{"compressed":true}'));
    });
    await expect(readText(await post(local.url), 1024)).resolves.toEqual({
      text: '{"compressed":true}',
      truncated: false,
    });
  });
});

describe('postJson over the transport', () => {
  const send = (url: string, onHeaders?: (headers: HeaderReader) => void) =>
    postJson(url, {}, '{}', new AbortController().signal, () => 1_000_000, onHeaders);

  it('refuses a redirect without following it: the target gets no request', async () => {
    const target = await serve((_request, response) => response.end('{}'));
    const redirecting = await serve((_request, response) => {
      response.writeHead(307, { location: target.url });
      response.end();
    });
    const failure = await send(redirecting.url).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AttemptFailure);
    expect(failure).toMatchObject({ failureClass: 'bad_request', status: 307 });
    expect((failure as Error).message).toContain('redirects');
    expect(redirecting.requests).toHaveLength(1);
    expect(target.requests).toEqual([]);
    expect(target.connections.opened).toBe(0);
  });

  it('shows a 429’s rate-limit headers and reads its Retry-After', async () => {
    const local = await serve((_request, response) => {
      response.writeHead(429, {
        'retry-after': '7',
        'x-ratelimit-limit-requests': '60',
        'x-ratelimit-remaining-requests': '0',
        'x-ratelimit-reset-requests': '7s',
        'content-type': 'application/json',
      });
      response.end('{"error":{"message":"Rate limit reached","type":"requests"}}');
    });
    const seen: HeaderReader[] = [];
    const failure = await send(local.url, (headers) => seen.push(headers)).catch(
      (error: unknown) => error,
    );
    expect(failure).toMatchObject({ failureClass: 'http', status: 429, retryAfterMs: 7000 });
    expect((failure as Error).message).toBe('HTTP 429: Rate limit reached');
    expect(seen).toHaveLength(1);
    expect(seen[0]?.get('X-RateLimit-Remaining-Requests')).toBe('0');
    expect(parseRateLimitHeaders(seen[0]!, 1_000_000)).toMatchObject({
      requests: { limit: 60, remaining: 0, resetAt: 1_007_000 },
    });
  });

  it('caps an error body when quoting it', async () => {
    const local = await serve((_request, response) => {
      response.writeHead(503);
      response.end('overloaded '.repeat(5_000));
    });
    const failure = await send(local.url).catch((error: unknown) => error);
    expect(failure).toMatchObject({ failureClass: 'http', status: 503 });
    expect((failure as Error).message.length).toBeLessThan(400);
  });

  it('classifies a refused connection as a connection failure, as with fetch', async () => {
    const error = await send(await refusedUrl()).catch((thrown: unknown) => thrown);
    const failure = classifyTransportError(error);
    expect(failure).toMatchObject({ failureClass: 'connection' });
    expect(failure?.message).toBe(
      'connection refused: nothing listens at that address and port (ECONNREFUSED)',
    );
    expect(failure?.isFatal).toBe(false);
    expect(failure?.countsAgainstEndpoint).toBe(true);
  });

  it('classifies a connection reset in the middle of a body as a connection failure', async () => {
    let reset = (): void => undefined;
    const local = await serve((request, response) => {
      response.writeHead(200, { 'content-length': '100' });
      response.write('{"partial"');
      reset = () => request.socket.destroy();
    });
    const answer = await post(local.url);
    const chunks = answer.body[Symbol.asyncIterator]();
    expect((await chunks.next()).done).toBe(false);
    reset();
    const failure = classifyTransportError(await chunks.next().catch((error: unknown) => error));
    expect(failure).toMatchObject({ failureClass: 'connection' });
    expect(failure?.message).toMatch(/\(ECONNRESET\)$/);
  });

  it('classifies a header that is not valid HTTP as a bad request, without quoting its value', async () => {
    const local = await serve((_request, response) => response.end());
    const error = await postJson(
      local.url,
      { 'x-key': 'secret\nvalue' },
      '{}',
      new AbortController().signal,
      () => 0,
    ).catch((thrown: unknown) => thrown);
    const failure = classifyTransportError(error);
    expect(failure).toMatchObject({ failureClass: 'bad_request' });
    expect(failure?.message).not.toContain('secret');
    expect(local.connections.opened).toBe(0);
  });
});

describe('https to a server whose certificate the process trusts only as an extra CA', () => {
  const tls = join(import.meta.dirname, '../fixtures/tls');
  const transport = join(import.meta.dirname, '../../dist/intel/index.js');

  it.runIf(existsSync(transport))(
    'connects with NODE_EXTRA_CA_CERTS set (as a child gets it from `tls_ca`), and not without',
    async () => {
      const server = createHttpsServer(
        {
          cert: readFileSync(join(tls, 'cert.pem')),
          key: readFileSync(join(tls, 'key.pem')),
        },
        (_request, response) => response.end('{"tls":true}'),
      );
      const { url } = await listen(server, 'https');
      const script = `
        import { sendPost } from ${JSON.stringify(transport)};
        try {
          const answer = await sendPost(${JSON.stringify(url)}, {
            headers: {}, body: '{}', signal: AbortSignal.timeout(10_000),
          });
          let text = '';
          for await (const chunk of answer.body) text += Buffer.from(chunk).toString();
          process.stdout.write(answer.status + ' ' + text);
        } catch (error) {
          process.stdout.write(error.name + ' ' + error.code);
        }`;
      const run = async (env: NodeJS.ProcessEnv): Promise<string> =>
        (
          await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
            env,
          })
        ).stdout;
      const base = { PATH: process.env.PATH };
      await expect(run({ ...base, NODE_EXTRA_CA_CERTS: join(tls, 'cert.pem') })).resolves.toBe(
        '200 {"tls":true}',
      );
      await expect(run(base)).resolves.toMatch(/^TransportError [A-Z_]+$/);
    },
    30_000,
  );
});
