import { existsSync } from 'node:fs';
import { mkdir, readdir, stat, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  localHttp,
  openSession,
  proxyRequest,
  proxyRig,
  readAll,
  requestSession,
  type LocalHttp,
  type ProxyRig,
} from '../../helpers/egress.js';

let web: LocalHttp;
let rig: ProxyRig;

beforeAll(async () => {
  web = await localHttp();
});
afterAll(async () => {
  await web.close();
});
beforeEach(async () => {
  rig = await proxyRig();
});
afterEach(async () => {
  await rig.dispose();
});

describe('a node of the egress proxy', () => {
  it('makes its directory 0700 with control.sock 0600', async () => {
    const open = await rig.open();
    expect((await stat(open.dir)).mode & 0o777).toBe(0o700);
    expect((await stat(join(open.dir, 'control.sock'))).mode & 0o777).toBe(0o600);
    expect(await readdir(open.dir)).toEqual(['control.sock']);
  });

  it('takes an empty directory, refuses one with something in it, and a node open twice', async () => {
    const empty = join(rig.base, 'empty');
    await mkdir(empty);
    await rig.open({ node: 'a', dir: empty });
    const full = join(rig.base, 'full');
    await mkdir(full);
    await writeFile(join(full, 'x'), '');
    const base = { type: 'open' as const, net: 'all' as const, named: [], forwards: [] };
    const limits = { max_connections: 1, max_bytes: 1 };
    expect(await rig.proxy.open({ ...base, node: 'b', dir: full, limits })).toEqual({
      type: 'error',
      node: 'b',
      message: `${full} exists and is not empty`,
    });
    expect(await rig.proxy.open({ ...base, node: 'a', dir: join(rig.base, 'c'), limits })).toEqual({
      type: 'error',
      node: 'a',
      message: 'node `a` is already open',
    });
    expect(await rig.proxy.close('nope')).toEqual({
      type: 'error',
      node: 'nope',
      message: 'node `nope` is not open',
    });
  });

  it('makes a session on request, and when its client closes, removes it and reports its traffic', async () => {
    const open = await rig.open({ net: [`127.0.0.1:${web.port}`], named: ['127.0.0.1'] });
    const session = await openSession(open.dir, 'curl http://example');
    expect(session.dir).toBe(join(open.dir, 's-1'));
    expect((await stat(session.dir)).mode & 0o777).toBe(0o700);
    expect((await stat(session.proxySock)).mode & 0o777).toBe(0o600);
    expect(session.forwards).toEqual([]);

    const answer = await proxyRequest(session.proxySock, `http://127.0.0.1:${web.port}/hello`);
    expect(answer.body).toBe('hello there');
    session.close();
    const traffic = await rig.reports.waitFor('traffic');
    expect(traffic).toMatchObject({
      node: open.node,
      command: 'curl http://example',
      host: '127.0.0.1',
      port: web.port,
      connections: 1,
      bytes_up: 0,
      bytes_down: 'hello there'.length,
    });
    expect(traffic.ms).toBeGreaterThanOrEqual(0);
    // The traffic line comes after the directory is gone.
    expect(existsSync(session.dir)).toBe(false);
  });

  it('gives each session its own directory and forward sockets, in the order of forwards', async () => {
    const forwards = [
      { host: '127.0.0.1', port: 1 },
      { host: 'example.com', port: 443 },
    ];
    const open = await rig.open({ forwards });
    const one = await openSession(open.dir, 'a');
    const two = await openSession(open.dir, 'b');
    expect(two.dir).toBe(join(open.dir, 's-2'));
    expect(one.forwards).toEqual([
      { ...forwards[0], socket: join(one.dir, 'fwd-0.sock') },
      { ...forwards[1], socket: join(one.dir, 'fwd-1.sock') },
    ]);
    expect((await readdir(one.dir)).sort()).toEqual(['fwd-0.sock', 'fwd-1.sock', 'proxy.sock']);
    one.close();
    two.close();
  });

  it('answers a bad session request with an error line and an error report', async () => {
    const open = await rig.open();
    const { answer, socket } = await requestSession(
      join(open.dir, 'control.sock'),
      '{"command": 42}\n',
    );
    expect(answer.ok && answer.frame).toEqual({
      error: expect.stringContaining('`command`: expected a string') as unknown,
    });
    await readAll(socket);
    const error = await rig.reports.waitFor('error');
    expect(error.node).toBe(open.node);
    expect(await readdir(open.dir)).toEqual(['control.sock']);
  });

  it('a session socket takes no session request: proxy.sock answers it 400', async () => {
    const open = await rig.open();
    const session = await openSession(open.dir);
    const socket = connect(session.proxySock);
    socket.write(`${JSON.stringify({ command: 'sneaky' })}\n\n`);
    const text = await readAll(socket);
    expect(text).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(text).toContain('arbor egress: bad request');
    expect((await readdir(open.dir)).sort()).toEqual(['control.sock', 's-1']);
    session.close();
  });

  it('closing a node closes its sessions, reports their traffic, then answers closed', async () => {
    const open = await rig.open({ net: [`127.0.0.1:${web.port}`], named: ['127.0.0.1'] });
    const session = await openSession(open.dir, 'make');
    await proxyRequest(session.proxySock, `http://127.0.0.1:${web.port}/hello`);
    const lines = rig.reports.lines;
    expect(await rig.proxy.close(open.node)).toEqual({ type: 'closed', node: open.node });
    expect(lines.map((line) => line.type)).toEqual(['traffic']);
    expect(existsSync(open.dir)).toBe(false);
  });
});
