import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { namedHosts } from '../../../src/authority/index.js';
import type { Scope } from '../../../src/protocol/index.js';
import { builtinHost, caveats } from '../../helpers/builtin-tools.js';
import { DEFAULT_BUILTIN_LIMITS } from '../../../src/tools/index.js';
import { httpFetchTool } from '../../../src/tools/builtin/http-fetch.js';
import { PathGuard } from '../../../src/tools/builtin/path-guard.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

let server: Server;
let port: number;
let route: Record<string, Handler> = {};

beforeAll(async () => {
  server = createServer((req, res) => {
    const handler = route[req.url ?? ''];
    if (handler === undefined) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('no route');
      return;
    }
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/**
 * `http.fetch` under `net`, through a real registry; `named` are the hosts the operator named in
 * the run's grant (by default, as a root's: the exact entries of `net`).
 */
function fetcher(net: Scope, limits = {}, named: readonly string[] = namedHosts(net)) {
  return builtinHost({ caveats: caveats({ net }), cwd: '/tmp', limits, namedHosts: named });
}

/** The same tool with names resolved by a table: `*.site.test` stands for hosts on this machine. */
function withNames(net: Scope, names: Record<string, string>) {
  const context = {
    namedHosts: namedHosts(net),
    netCredentials: [],
    caveats: caveats({ net }),
    cwd: '/tmp',
    guard: new PathGuard({ caveats: caveats({ net }), cwd: '/tmp' }),
    limits: DEFAULT_BUILTIN_LIMITS,
    env: {},
    sandbox: { mode: 'off' as const },
    protect: [],
    egress: undefined,
  };
  const tool = httpFetchTool(context, (host) => {
    const address = names[host];
    if (address === undefined)
      return Promise.reject(Object.assign(new Error('not found'), { code: 'ENOTFOUND' }));
    return Promise.resolve([{ address, family: 4 as const }]);
  });
  return (args: Record<string, unknown>) =>
    tool.run(args, { signal: new AbortController().signal, callId: 'c1' });
}

describe('http.fetch under net', () => {
  it('fetches from a host the grant names, with status, type and body', async () => {
    route = {
      '/hello': (_req, res) =>
        res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end('hello there'),
    };
    const out = await fetcher([`127.0.0.1:${port}`]).call('http.fetch', {
      url: `http://127.0.0.1:${port}/hello`,
    });
    expect(out.isError).toBe(false);
    expect(out.content).toBe('HTTP 200 OK\ncontent-type: text/plain; charset=utf-8\n\nhello there');
    expect(out.source).toBe(`http.fetch GET http://127.0.0.1:${port}/hello → 200 text/plain`);
  });

  it('sends a method, headers and a body', async () => {
    route = {
      '/echo': (req, res) => {
        let body = '';
        req.on('data', (chunk: Buffer) => (body += chunk.toString()));
        req.on('end', () =>
          res
            .writeHead(201, { 'content-type': 'application/json' })
            .end(JSON.stringify({ method: req.method, x: req.headers['x-test'], body })),
        );
      },
    };
    const out = await fetcher([`127.0.0.1:${port}`]).call('http.fetch', {
      url: `http://127.0.0.1:${port}/echo`,
      method: 'POST',
      headers: { 'x-test': 'yes' },
      body: 'payload',
    });
    expect(out.content).toContain('HTTP 201 Created');
    expect(out.content).toContain('{"method":"POST","x":"yes","body":"payload"}');
  });

  it('refuses a host outside net, naming what net allows', async () => {
    const out = await fetcher(['api.example.com']).call('http.fetch', {
      url: `http://127.0.0.1:${port}/hello`,
    });
    expect(out).toMatchObject({
      isError: true,
      content: `\`http.fetch\` refused: 127.0.0.1:${port} is not in net (allowed: api.example.com).`,
    });
  });

  it('refuses loopback under net = "all": only an entry naming it exactly allows it', async () => {
    route = { '/hello': (_req, res) => res.end('hi') };
    const out = await fetcher('all').call('http.fetch', { url: `http://localhost:${port}/hello` });
    expect(out.isError).toBe(true);
    expect(out.content).toMatch(
      /^`http.fetch` refused: localhost resolves to (127\.0\.0\.1|::1), a loopback address/,
    );
    const named = await fetcher(['localhost']).call('http.fetch', {
      url: `http://localhost:${port}/hello`,
    });
    expect(named.isError, String(named.content)).toBe(false);
  });

  it('takes a private address as named only from the run grant, never from a narrowed net', async () => {
    route = { '/hello': (_req, res) => res.end('secret') };
    // A child asked for `net = ["127.0.0.1"]` under a parent holding `all`: allowed, not named.
    const child = fetcher([`127.0.0.1:${port}`], {}, []);
    const out = await child.call('http.fetch', { url: `http://127.0.0.1:${port}/hello` });
    expect(out.isError).toBe(true);
    expect(out.content).toContain('127.0.0.1, a loopback address');
    expect(out.content).not.toContain('secret');
  });

  it('refuses a name that resolves to 127.0.0.1 when only a wildcard allows it', async () => {
    const run = withNames(['*.site.test'], { 'evil.site.test': '127.0.0.1' });
    const out = await run({ url: `http://evil.site.test:${port}/hello` });
    expect(out.content).toMatch(
      /refused: evil\.site\.test resolves to 127\.0\.0\.1, a loopback address/,
    );
  });

  it.each([
    ['169.254.169.254', 'link-local address (cloud metadata'],
    ['10.0.0.8', 'a private address'],
    ['0.0.0.0', 'the unspecified address'],
  ])('refuses a name that resolves to %s', async (address, words) => {
    const out = await withNames('all', { 'inner.test': address })({ url: 'http://inner.test/' });
    expect(out.content).toContain(words);
  });

  it.each([
    ['[::127.0.0.1]', 'an IPv4-compatible address (deprecated; it embeds 127.0.0.1)'],
    ['[::7f00:1]', 'an IPv4-compatible address (deprecated; it embeds 127.0.0.1)'],
    ['[0:0:0:0:0:0:127.0.0.1]', 'an IPv4-compatible address (deprecated; it embeds 127.0.0.1)'],
    ['[::a9fe:a9fe]', 'an IPv4-compatible address (deprecated; it embeds 169.254.169.254)'],
    ['[::ffff:127.0.0.1]', 'a loopback address'],
    ['[::ffff:a9fe:a9fe]', 'a link-local address (cloud metadata'],
    ['[64:ff9b::7f00:1]', 'a NAT64 address'],
    ['[64:ff9b::a9fe:a9fe]', 'a NAT64 address'],
  ])('refuses IPv4 written as IPv6, %s, under net = "all"', async (host, words) => {
    route = { '/hello': (_req, res) => res.end('reached') };
    const out = await fetcher('all').call('http.fetch', { url: `http://${host}:${port}/hello` });
    expect(out.isError).toBe(true);
    expect(out.content).toContain(words);
    expect(out.content).not.toContain('reached');
  });

  it('checks every redirect again: one to a private address is refused', async () => {
    route = {
      '/go': (_req, res) =>
        res.writeHead(302, { location: `http://inner.site.test:${port}/hello` }).end(),
    };
    const run = withNames(['site.test', '*.site.test'], {
      'site.test': '127.0.0.1',
      'inner.site.test': '127.0.0.1',
    });
    const out = await run({ url: `http://site.test:${port}/go` });
    expect(out.isError).toBe(true);
    expect(out.content).toBe(
      `\`http.fetch\` refused: inner.site.test resolves to 127.0.0.1, a loopback address; only a net entry naming \`inner.site.test\` or \`127.0.0.1\` exactly allows that (redirected from http://site.test:${port}/go).`,
    );
  });

  it('follows an allowed redirect and says so', async () => {
    route = {
      '/go': (_req, res) => res.writeHead(301, { location: '/hello' }).end(),
      '/hello': (_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('landed'),
    };
    const out = await fetcher([`127.0.0.1:${port}`]).call('http.fetch', {
      url: `http://127.0.0.1:${port}/go`,
    });
    expect(out.content).toContain(
      `redirected: http://127.0.0.1:${port}/go → http://127.0.0.1:${port}/hello`,
    );
    expect(out.content).toContain('landed');
  });

  it('cuts a body at the size limit', async () => {
    route = {
      '/big': (_req, res) =>
        res.writeHead(200, { 'content-type': 'text/plain' }).end('x'.repeat(3 * 1024 * 1024)),
    };
    const out = await fetcher([`127.0.0.1:${port}`], { fetchMaxBytes: 1000 }).call('http.fetch', {
      url: `http://127.0.0.1:${port}/big`,
    });
    expect(out.content).toContain('[the body was cut after 1000 bytes]');
    expect(String(out.content).length).toBeLessThan(1200);
  });

  it('gives up at the time limit', async () => {
    route = { '/hang': () => undefined };
    const out = await fetcher([`127.0.0.1:${port}`]).call('http.fetch', {
      url: `http://127.0.0.1:${port}/hang`,
      timeout_ms: 200,
    });
    expect(out).toMatchObject({
      isError: true,
      content: `\`http.fetch\`: http://127.0.0.1:${port}/hang did not answer within 200 ms.`,
    });
  });

  it('does not show a binary body, nor take a Host header or a URL with credentials', async () => {
    route = {
      '/bin': (_req, res) =>
        res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.alloc(64)),
    };
    const host = fetcher([`127.0.0.1:${port}`]);
    expect(
      (await host.call('http.fetch', { url: `http://127.0.0.1:${port}/bin` })).content,
    ).toContain('[64 bytes of image/png, not text: not shown]');
    expect(
      (
        await host.call('http.fetch', {
          url: `http://127.0.0.1:${port}/bin`,
          headers: { Host: 'x' },
        })
      ).content,
    ).toContain('the `Host` header is set by arbor');
    expect(
      (await host.call('http.fetch', { url: `http://u:p@127.0.0.1:${port}/bin` })).content,
    ).toContain('user name or password');
    expect((await host.call('http.fetch', { url: 'file:///etc/passwd' })).content).toContain(
      '`file:` URLs are not fetched',
    );
  });

  it('is offered only when net grants something', () => {
    const names = (net: Scope) =>
      builtinHost({ caveats: caveats({ net }), cwd: '/tmp' })
        .registry.definitions()
        .map((d) => d.name);
    expect(names([])).not.toContain('http.fetch');
    expect(names(['example.com'])).toContain('http.fetch');
    expect(names('all')).toContain('http.fetch');
  });
});
