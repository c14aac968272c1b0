import { lookup } from 'node:dns/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkEgress } from '../../../src/tools/egress/egress-policy.js';
import {
  localHttp,
  openSession,
  proxyConnect,
  proxyRequest,
  proxyRig,
  readAll,
  type LocalHttp,
  type ProxyRig,
  type SessionClient,
} from '../../helpers/egress.js';

let rig: ProxyRig;
/** A session whose node has `net = "all"` and names nothing. */
let open: SessionClient;

beforeAll(async () => {
  rig = await proxyRig();
  open = await openSession((await rig.open({ net: 'all' })).dir, 'curl');
});
afterAll(async () => {
  await rig.dispose();
});

describe('egress under net = "all"', () => {
  it.each([
    ['127.0.0.1:80', '127.0.0.1', 'a loopback address'],
    ['10.0.0.1:80', '10.0.0.1', 'a private address'],
    ['169.254.169.254:80', '169.254.169.254', 'a link-local address'],
    ['0.0.0.0:80', '0.0.0.0', 'the unspecified address'],
    ['[::1]:80', '::1', 'a loopback address'],
    ['[::ffff:127.0.0.1]:80', '::ffff:7f00:1', 'a loopback address'],
    ['[::127.0.0.1]:80', '::7f00:1', 'an IPv4-compatible address'],
    ['0x7f.1:80', '127.0.0.1', 'a loopback address'],
  ])('refuses CONNECT %s (%s)', async (authority, host, why) => {
    const tunnel = await proxyConnect(open.proxySock, authority);
    expect(tunnel.status).toBe(403);
    expect(await readAll(tunnel.socket, tunnel.head)).toContain(why);
    const refused = await rig.reports.waitFor('refused', (line) => line.host === host);
    expect(refused.why).toContain(why);
  });

  it.each([
    'http://169.254.169.254/latest/meta-data/',
    'http://[::ffff:169.254.169.254]/',
    'http://10.1.2.3:8080/',
  ])('refuses GET %s', async (url) => {
    const answer = await proxyRequest(open.proxySock, url);
    expect(answer.status).toBe(403);
    expect(answer.body).toMatch(/^arbor egress: refused .*only a net entry naming/);
  });
});

describe('names that resolve to special addresses', () => {
  let web: LocalHttp;
  let address: string;

  beforeAll(async () => {
    // Wherever `localhost` resolves first on this machine, the server listens there.
    address = (await lookup('localhost', { verbatim: true })).address;
    web = await localHttp(address);
  });
  afterAll(async () => {
    await web.close();
  });

  it('refuses localhost unless it is named', async () => {
    const answer = await proxyRequest(open.proxySock, `http://localhost:${web.port}/hello`);
    expect(answer.status).toBe(403);
    expect(answer.body).toContain(`localhost resolves to ${address}`);
  });

  it('reaches localhost when the operator names it exactly', async () => {
    const node = await rig.open({ net: 'all', named: ['localhost'] });
    const session = await openSession(node.dir);
    const answer = await proxyRequest(session.proxySock, `http://localhost:${web.port}/hello`);
    expect(answer.status).toBe(200);
    expect(answer.body).toBe('hello there');
    session.close();
  });

  it('a wildcard entry does not name a host: still refused', async () => {
    const node = await rig.open({ net: ['*.localhost', 'localhost'], named: ['*.localhost'] });
    const session = await openSession(node.dir);
    const answer = await proxyRequest(session.proxySock, `http://localhost:${web.port}/hello`);
    expect(answer.status).toBe(403);
    session.close();
  });
});

describe('egress under a list', () => {
  it('an empty list refuses everything', async () => {
    const node = await rig.open({ net: [], named: ['127.0.0.1'] });
    const session = await openSession(node.dir);
    const answer = await proxyRequest(session.proxySock, 'http://127.0.0.1:9/');
    expect(answer.status).toBe(403);
    expect(answer.body).toContain('is not in net (allowed: none)');
    session.close();
  });
});

describe('checkEgress', () => {
  const table = (names: Record<string, string>) => (host: string) =>
    Promise.resolve(
      names[host] === undefined ? [] : [{ address: names[host], family: 4 as const }],
    );

  it.each([
    [{ net: ['api.test'], named: [] }, 'api.test', '93.184.216.34', { ok: true }],
    [{ net: ['api.test'], named: [] }, 'api.test', '10.0.0.5', { ok: false }],
    [{ net: ['api.test'], named: ['api.test'] }, 'api.test', '10.0.0.5', { ok: true }],
    [{ net: 'all' as const, named: ['10.0.0.5'] }, 'api.test', '10.0.0.5', { ok: true }],
    [{ net: 'all' as const, named: ['10.0.0.6'] }, 'api.test', '10.0.0.5', { ok: false }],
    [{ net: ['other.test'], named: [] }, 'api.test', '93.184.216.34', { ok: false }],
  ])('%j: %s at %s', async (rules, host, address, expected) => {
    const decision = await checkEgress(host, 443, {
      ...rules,
      resolve: table({ [host]: address }),
    });
    expect(decision).toMatchObject(expected);
    if (decision.ok) expect(decision.address).toBe(address);
  });

  it('a name with no address is refused', async () => {
    expect(
      await checkEgress('gone.test', 80, { net: 'all', named: [], resolve: table({}) }),
    ).toEqual({
      ok: false,
      why: 'gone.test has no address',
    });
  });
});

describe('the connection goes to the address that was checked', () => {
  let web: LocalHttp;
  let pinned: ProxyRig;

  beforeAll(async () => {
    web = await localHttp();
    // `pinned.test` exists only in this resolver: a proxy that looked the name up again, in the
    // system's resolver, would fail to connect.
    pinned = await proxyRig({
      resolve: (host) =>
        Promise.resolve(
          host === 'pinned.test' ? [{ address: '127.0.0.1', family: 4 as const }] : [],
        ),
    });
  });
  afterAll(async () => {
    await pinned.dispose();
    await web.close();
  });

  it('for a forwarded request and for a tunnel', async () => {
    const node = await pinned.open({ net: ['pinned.test'], named: ['pinned.test'] });
    const session = await openSession(node.dir);
    const answer = await proxyRequest(session.proxySock, `http://pinned.test:${web.port}/hello`);
    expect(answer.body).toBe('hello there');
    expect(web.seen.at(-1)?.host).toBe(`pinned.test:${web.port}`);
    const tunnel = await proxyConnect(session.proxySock, `pinned.test:${web.port}`);
    expect(tunnel.status).toBe(200);
    tunnel.socket.write('GET /hello HTTP/1.1\r\nHost: pinned.test\r\nConnection: close\r\n\r\n');
    expect(await readAll(tunnel.socket, tunnel.head)).toContain('hello there');
    session.close();
  });
});
