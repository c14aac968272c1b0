import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  echoRoundTrip,
  localEcho,
  localHttp,
  openSession,
  proxyConnect,
  proxyRequest,
  proxyRig,
  readAll,
  type LocalEcho,
  type LocalHttp,
  type ProxyRig,
  type SessionClient,
} from '../../helpers/egress.js';

let web: LocalHttp;
let echo: LocalEcho;
let rig: ProxyRig;
let session: SessionClient;

beforeAll(async () => {
  web = await localHttp();
  echo = await localEcho();
  rig = await proxyRig();
  // The two local servers, named exactly: nothing else on this machine is reachable.
  const open = await rig.open({
    net: [`127.0.0.1:${web.port}`, `127.0.0.1:${echo.port}`, 'example.com'],
    named: [`127.0.0.1:${web.port}`, `127.0.0.1:${echo.port}`],
  });
  session = await openSession(open.dir, 'npm install');
});
afterAll(async () => {
  await rig.dispose();
  await web.close();
  await echo.close();
});

describe('proxy.sock: absolute-form requests', () => {
  it('forwards a GET to a named local server, without hop-by-hop or proxy headers', async () => {
    const answer = await proxyRequest(session.proxySock, `http://127.0.0.1:${web.port}/hello`, {
      headers: {
        'proxy-authorization': 'Basic c2VjcmV0',
        'proxy-connection': 'keep-alive',
        connection: 'keep-alive, x-private',
        'x-private': 'hop',
        'x-kept': 'end to end',
      },
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toBe('hello there');
    expect(answer.headers['set-cookie']).toEqual(['a=1', 'b=2']);
    expect(answer.headers['x-hop']).toBeUndefined();
    const seen = web.seen.at(-1);
    expect(seen).toMatchObject({ host: `127.0.0.1:${web.port}`, 'x-kept': 'end to end' });
    expect(seen?.['proxy-authorization']).toBeUndefined();
    expect(seen?.['proxy-connection']).toBeUndefined();
    expect(seen?.['x-private']).toBeUndefined();
  });

  it('streams a request body up and the answer down', async () => {
    const body = 'x'.repeat(200_000);
    const answer = await proxyRequest(session.proxySock, `http://127.0.0.1:${web.port}/echo`, {
      method: 'POST',
      body,
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toBe(body);
  });

  it('refuses a host outside net with 403, the reason, and a refused line', async () => {
    const answer = await proxyRequest(session.proxySock, 'http://other.example:8080/x');
    expect(answer.status).toBe(403);
    expect(answer.headers['x-arbor-egress']).toBe('refused');
    const why = `other.example:8080 is not in net (allowed: 127.0.0.1:${web.port}, 127.0.0.1:${echo.port}, example.com)`;
    expect(answer.body).toBe(`arbor egress: refused other.example:8080: ${why}\n`);
    expect(await rig.reports.waitFor('refused', (l) => l.host === 'other.example')).toEqual({
      type: 'refused',
      node: 'n1',
      command: 'npm install',
      host: 'other.example',
      port: 8080,
      why,
    });
  });

  it.each([
    ['origin-form', '/hello', 'expected an absolute http:// URL'],
    ['https absolute form', 'https://example.com/', 'use CONNECT host:443'],
    ['a user in the URL', 'http://me:pw@example.com/', 'user name or password'],
  ])('answers %s with 400', async (_name, target, reason) => {
    const answer = await proxyRequest(session.proxySock, target);
    expect(answer.status).toBe(400);
    expect(answer.body).toContain(reason);
    expect(answer.body.split('\n')).toHaveLength(2);
  });

  it('answers garbage 400, closes, and goes on serving', async () => {
    for (const garbage of [
      '\x00\x01\x02 nonsense\r\n\r\n',
      `GET / HTTP/1.1\r\nX: ${'a'.repeat(20_000)}\r\n\r\n`,
    ]) {
      const socket = connect(session.proxySock);
      socket.write(garbage);
      expect(await readAll(socket)).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    }
    const answer = await proxyRequest(session.proxySock, `http://127.0.0.1:${web.port}/hello`);
    expect(answer.body).toBe('hello there');
  });
});

describe('proxy.sock: CONNECT', () => {
  it('tunnels to a named local TCP server, both ways', async () => {
    const tunnel = await proxyConnect(session.proxySock, `127.0.0.1:${echo.port}`);
    expect(tunnel.status).toBe(200);
    expect(await echoRoundTrip(tunnel.socket, 'ping through the tunnel')).toBe(
      'ping through the tunnel',
    );
    tunnel.socket.destroy();
  });

  it('refuses a host outside net with 403 and the reason, then ends the socket', async () => {
    const tunnel = await proxyConnect(session.proxySock, 'elsewhere.test:443');
    expect(tunnel.status).toBe(403);
    expect(tunnel.headers['x-arbor-egress']).toBe('refused');
    expect(await readAll(tunnel.socket, tunnel.head)).toBe(
      `arbor egress: refused elsewhere.test:443: elsewhere.test:443 is not in net (allowed: 127.0.0.1:${web.port}, 127.0.0.1:${echo.port}, example.com)\n`,
    );
  });

  it.each([
    'example.com',
    'example.com:0',
    'example.com:99999',
    '[::1:80',
    'example.com:80/x',
    'user@example.com:443',
  ])('answers CONNECT %s with 400', async (authority) => {
    const tunnel = await proxyConnect(session.proxySock, authority);
    expect(tunnel.status).toBe(400);
    expect(await readAll(tunnel.socket, tunnel.head)).toContain('arbor egress:');
  });
});
