import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { namedHosts } from '../../../src/authority/index.js';
import type { NetCredential, Scope } from '../../../src/protocol/index.js';
import { DEFAULT_BUILTIN_LIMITS } from '../../../src/tools/index.js';
import { httpFetchTool } from '../../../src/tools/builtin/http-fetch.js';
import { PathGuard } from '../../../src/tools/builtin/path-guard.js';
import { builtinHost, caveats } from '../../helpers/builtin-tools.js';

// Shaped like no known credential (no `Bearer`, no `ghp_`): only its value can find it.
const TOKEN = 'opaque-brokered-5e8d21c7b94f0a36';
const VALUE = `Token ${TOKEN}`;

let server: Server;
let port: number;
/** The headers of every request the server got, in order. */
let seen: { path: string; headers: IncomingHttpHeaders }[] = [];

beforeAll(async () => {
  // Echoes the request's headers as JSON, and the token of `authorization` without its scheme
  // word; `/hop?to=URL` redirects there first.
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    seen.push({ path: url.pathname, headers: req.headers });
    const to = url.searchParams.get('to');
    if (url.pathname === '/hop' && to !== null) {
      res.writeHead(302, { location: to }).end();
      return;
    }
    const bare = req.headers.authorization?.split(' ')[1];
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ headers: req.headers, bare }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  seen = [];
});

const credential = (host: string, extra: Partial<NetCredential> = {}): NetCredential => ({
  host,
  header: 'authorization',
  value: VALUE,
  ...extra,
});

/** `http.fetch` under `net`, through a real registry, holding `credentials`. */
function fetcher(net: Scope, credentials: NetCredential[]) {
  const host = builtinHost({
    caveats: caveats({ net }),
    cwd: '/tmp',
    namedHosts: namedHosts(net),
    netCredentials: credentials,
  });
  return (args: Record<string, unknown>) => host.call('http.fetch', args);
}

/** The same, with `api.site.test` and `other.site.test` both names of this machine. */
function twoHosts(credentials: NetCredential[]) {
  const net = ['api.site.test', 'other.site.test'];
  const tool = httpFetchTool(
    {
      namedHosts: namedHosts(net),
      netCredentials: credentials,
      caveats: caveats({ net }),
      cwd: '/tmp',
      guard: new PathGuard({ caveats: caveats({ net }), cwd: '/tmp' }),
      limits: DEFAULT_BUILTIN_LIMITS,
      env: {},
      sandbox: { mode: 'off' },
      protect: [],
      egress: undefined,
    },
    (name) =>
      net.includes(name)
        ? Promise.resolve([{ address: '127.0.0.1', family: 4 as const }])
        : Promise.reject(Object.assign(new Error('not found'), { code: 'ENOTFOUND' })),
  );
  return (args: Record<string, unknown>) =>
    tool.run(args, { signal: new AbortController().signal, callId: 'c1' });
}

describe('http.fetch with a brokered credential', () => {
  it('adds the header to a request for its host, and scrubs the echoed value from the answer', async () => {
    const fetch = fetcher([`127.0.0.1:${port}`], [credential('127.0.0.1')]);
    const out = await fetch({ url: `http://127.0.0.1:${port}/echo` });
    expect(out.isError, String(out.content)).toBe(false);
    expect(seen).toHaveLength(1);
    expect(seen[0]?.headers.authorization).toBe(VALUE);
    // The server echoed it: the model reads neither the header value nor the bare token.
    expect(String(out.content)).toContain('"authorization":"[redacted]"');
    expect(String(out.content)).toContain('"bare":"[redacted]"');
    expect(String(out.content)).not.toContain(TOKEN);
  });

  it('adds it only on the port the credential names, when it names one', async () => {
    const fetch = fetcher([`127.0.0.1:${port}`], [credential('127.0.0.1', { port: port + 1 })]);
    await fetch({ url: `http://127.0.0.1:${port}/echo` });
    expect(seen[0]?.headers.authorization).toBeUndefined();
    const exact = fetcher([`127.0.0.1:${port}`], [credential('127.0.0.1', { port })]);
    await exact({ url: `http://127.0.0.1:${port}/echo` });
    expect(seen[1]?.headers.authorization).toBe(VALUE);
  });

  it('does not add it to a request for another host', async () => {
    const fetch = twoHosts([credential('api.site.test')]);
    const out = await fetch({ url: `http://other.site.test:${port}/echo` });
    expect(out.isError, String(out.content)).toBe(false);
    expect(seen.map((s) => s.headers.host)).toEqual([`other.site.test:${port}`]);
    expect(seen[0]?.headers.authorization).toBeUndefined();
  });

  it('carries it on a redirect only to its own host, never to another', async () => {
    const fetch = twoHosts([credential('api.site.test')]);
    const away = encodeURIComponent(`http://other.site.test:${port}/echo`);
    const out = await fetch({ url: `http://api.site.test:${port}/hop?to=${away}` });
    expect(out.isError, String(out.content)).toBe(false);
    expect(seen.map((s) => [s.headers.host, s.headers.authorization])).toEqual([
      [`api.site.test:${port}`, VALUE],
      [`other.site.test:${port}`, undefined],
    ]);
    // And from another host to its own, the hop that reaches it carries it.
    seen = [];
    const back = encodeURIComponent(`http://api.site.test:${port}/echo`);
    await fetch({ url: `http://other.site.test:${port}/hop?to=${back}` });
    expect(seen.map((s) => [s.headers.host, s.headers.authorization])).toEqual([
      [`other.site.test:${port}`, undefined],
      [`api.site.test:${port}`, VALUE],
    ]);
  });

  it.each(['authorization', 'Authorization'])(
    'refuses a call that sets `%s` itself for the credential’s host, sending nothing',
    async (name) => {
      const fetch = fetcher([`127.0.0.1:${port}`], [credential('127.0.0.1')]);
      const out = await fetch({
        url: `http://127.0.0.1:${port}/echo`,
        headers: { [name]: 'Bearer mine-mine-mine' },
      });
      expect(out).toMatchObject({
        isError: true,
        refused: true,
        content: `\`http.fetch\` refused: the \`${name}\` header of 127.0.0.1:${port} is a credential arbor adds, not set by a call.`,
      });
      expect(seen).toEqual([]);
    },
  );

  it('lets a call set that header for another host', async () => {
    const fetch = twoHosts([credential('api.site.test')]);
    await fetch({
      url: `http://other.site.test:${port}/echo`,
      headers: { authorization: 'Bearer its-own-token' },
    });
    expect(seen[0]?.headers.authorization).toBe('Bearer its-own-token');
  });

  it('tells the model which hosts carry which header, never the value', () => {
    const tool = builtinHost({
      caveats: caveats({ net: ['api.github.com'] }),
      cwd: '/tmp',
      netCredentials: [credential('api.github.com')],
    })
      .registry.definitions()
      .find((def) => def.name === 'http.fetch');
    expect(tool?.description).toContain(
      'arbor adds these credentials itself (never set them): `authorization` for api.github.com.',
    );
    expect(JSON.stringify(tool)).not.toContain(TOKEN);
  });
});
