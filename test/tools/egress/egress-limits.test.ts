import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
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
} from '../../helpers/egress.js';

let echo: LocalEcho;
let web: LocalHttp;
let rig: ProxyRig;

beforeAll(async () => {
  echo = await localEcho();
  web = await localHttp();
});
afterAll(async () => {
  await echo.close();
  await web.close();
});
beforeEach(async () => {
  rig = await proxyRig();
});
afterEach(async () => {
  await rig.dispose();
});

function openLimited(limits: { max_connections: number; max_bytes: number }) {
  return rig.open({
    net: [`127.0.0.1:${echo.port}`, `127.0.0.1:${web.port}`],
    named: ['127.0.0.1'],
    limits,
  });
}

describe("a node's limits", () => {
  it('refuses a connection over max_connections, across sessions, and frees the slot when one ends', async () => {
    const node = await openLimited({ max_connections: 1, max_bytes: 1_000_000 });
    const one = await openSession(node.dir, 'first');
    const two = await openSession(node.dir, 'second');
    const held = await proxyConnect(one.proxySock, `127.0.0.1:${echo.port}`);
    expect(held.status).toBe(200);

    const over = await proxyConnect(two.proxySock, `127.0.0.1:${echo.port}`);
    expect(over.status).toBe(403);
    const why = "over the node's limit of 1 concurrent connections";
    expect(await readAll(over.socket, over.head)).toContain(why);
    expect(await rig.reports.waitFor('refused', (l) => l.command === 'second')).toMatchObject({
      why,
    });

    // The first session's end closes its tunnel and gives the slot back before its traffic line.
    one.close();
    await rig.reports.waitFor('traffic', (l) => l.command === 'first');
    const answer = await proxyRequest(two.proxySock, `http://127.0.0.1:${web.port}/hello`);
    expect(answer.body).toBe('hello there');
    two.close();
  });

  it('cuts a tunnel that passes max_bytes, and refuses new connections after', async () => {
    const node = await openLimited({ max_connections: 4, max_bytes: 1000 });
    const session = await openSession(node.dir, 'upload');
    const tunnel = await proxyConnect(session.proxySock, `127.0.0.1:${echo.port}`);
    expect(await echoRoundTrip(tunnel.socket, 'a'.repeat(400))).toHaveLength(400);
    // 800 bytes so far; 400 more up would make 1200.
    const closed = readAll(tunnel.socket);
    tunnel.socket.write('b'.repeat(400));
    expect(await closed).toBe('');
    const cut = await rig.reports.waitFor('refused', (l) => l.command === 'upload');
    expect(cut.why).toBe("passed the node's limit of 1000 bytes");

    const after = await proxyRequest(session.proxySock, `http://127.0.0.1:${web.port}/hello`);
    expect(after.status).toBe(403);
    expect(after.body).toContain("the node's limit of 1000 bytes is used up");
    session.close();
    expect(await rig.reports.waitFor('traffic')).toMatchObject({
      host: '127.0.0.1',
      port: echo.port,
      bytes_up: 400,
      bytes_down: 400,
    });
  });

  it('cuts an HTTP answer that passes max_bytes', async () => {
    const node = await openLimited({ max_connections: 4, max_bytes: 100 });
    const session = await openSession(node.dir, 'download');
    await expect(
      proxyRequest(session.proxySock, `http://127.0.0.1:${web.port}/echo`, {
        method: 'POST',
        body: 'x'.repeat(60),
      }),
    ).rejects.toThrow();
    expect((await rig.reports.waitFor('refused', (l) => l.command === 'download')).why).toBe(
      "passed the node's limit of 100 bytes",
    );
    session.close();
  });
});
