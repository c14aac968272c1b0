import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  echoRoundTrip,
  localEcho,
  openSession,
  proxyRig,
  readAll,
  type LocalEcho,
  type ProxyRig,
} from '../../helpers/egress.js';

let echo: LocalEcho;
let rig: ProxyRig;

beforeAll(async () => {
  echo = await localEcho();
});
afterAll(async () => {
  await echo.close();
});

function dial(path: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(path, () => {
      resolve(socket);
    });
    socket.on('error', reject);
  });
}

describe('fwd-<i>.sock: raw TCP forwards', () => {
  beforeAll(async () => {
    rig = await proxyRig();
  });
  afterAll(async () => {
    await rig.dispose();
  });

  it('pipes a connection to a named host:port and counts it', async () => {
    const node = await rig.open({
      net: [`127.0.0.1:${echo.port}`],
      named: [`127.0.0.1:${echo.port}`],
      forwards: [{ host: '127.0.0.1', port: echo.port }],
    });
    const session = await openSession(node.dir, 'git fetch');
    const socket = await dial(session.forwards[0]!.socket);
    expect(await echoRoundTrip(socket, 'hello, echo')).toBe('hello, echo');
    socket.end();
    await readAll(socket);
    session.close();
    expect(await rig.reports.waitFor('traffic', (l) => l.command === 'git fetch')).toMatchObject({
      host: '127.0.0.1',
      port: echo.port,
      connections: 1,
      bytes_up: 11,
      bytes_down: 11,
    });
  });

  it('closes a connection its node may not make, with a refused line', async () => {
    const node = await rig.open({
      net: 'all',
      named: [],
      forwards: [{ host: '127.0.0.1', port: echo.port }],
    });
    const session = await openSession(node.dir, 'ssh');
    const socket = await dial(session.forwards[0]!.socket);
    socket.write('anything');
    expect(await readAll(socket)).toBe('');
    const refused = await rig.reports.waitFor('refused', (l) => l.command === 'ssh');
    expect(refused.why).toContain('127.0.0.1 resolves to 127.0.0.1, a loopback address');
    session.close();
  });
});

describe('fwd-<i>.sock: each connection is checked again', () => {
  /** What `db.test` resolves to: tests change it between connections. */
  let answer = '127.0.0.1';

  beforeAll(async () => {
    rig = await proxyRig({
      resolve: (host) =>
        Promise.resolve(host === 'db.test' ? [{ address: answer, family: 4 as const }] : []),
    });
  });
  afterAll(async () => {
    await rig.dispose();
  });

  it('refuses a name that has come to resolve to an address no one named', async () => {
    const node = await rig.open({
      net: ['db.test'],
      named: ['127.0.0.1'],
      forwards: [{ host: 'db.test', port: echo.port }],
    });
    const session = await openSession(node.dir, 'psql');
    const first = await dial(session.forwards[0]!.socket);
    expect(await echoRoundTrip(first, 'one')).toBe('one');
    first.destroy();

    answer = '10.9.8.7';
    const second = await dial(session.forwards[0]!.socket);
    expect(await readAll(second)).toBe('');
    const refused = await rig.reports.waitFor('refused', (l) => l.host === 'db.test');
    expect(refused.why).toContain('db.test resolves to 10.9.8.7, a private address');
    session.close();
  });
});
