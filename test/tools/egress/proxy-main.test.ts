import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  decodeEgressReport,
  proxyMainPath,
  type EgressReport,
} from '../../../src/tools/egress/index.js';
import { localHttp, openSession, proxyRequest, type LocalHttp } from '../../helpers/egress.js';

/** The proxy process (the built entry, as the supervisor starts it: no environment at all). */
class ProxyProcess {
  readonly child: ChildProcessWithoutNullStreams;
  readonly #lines: EgressReport[] = [];
  #wake: (() => void) | undefined;

  constructor() {
    this.child = spawn(process.execPath, [proxyMainPath()], { env: {}, stdio: 'pipe' });
    createInterface({ input: this.child.stdout }).on('line', (text) => {
      const decoded = decodeEgressReport(text, this.#lines.length + 1);
      if (!decoded.ok) throw new Error(`not a report line: ${text}`);
      this.#lines.push(decoded.frame);
      this.#wake?.();
    });
  }

  send(line: string): void {
    this.child.stdin.write(`${line}\n`);
  }

  /** The next line on stdout. */
  async next(): Promise<EgressReport> {
    while (this.#lines.length === 0) await new Promise<void>((resolve) => (this.#wake = resolve));
    return this.#lines.shift()!;
  }

  exited(): Promise<number | null> {
    if (this.child.exitCode !== null) return Promise.resolve(this.child.exitCode);
    return new Promise((resolve) =>
      this.child.once('exit', (code) => {
        resolve(code);
      }),
    );
  }
}

let base: string;
let web: LocalHttp;

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'egress-main-'));
  web = await localHttp();
});
afterAll(async () => {
  await web.close();
  await rm(base, { recursive: true, force: true });
});

describe('the egress proxy process', () => {
  it('answers bad control lines with an error line naming what was wrong, and goes on', async () => {
    const proxy = new ProxyProcess();
    proxy.send('not json');
    expect(await proxy.next()).toEqual({
      type: 'error',
      message: 'control line 1: not valid JSON (8 chars)',
    });
    proxy.send(JSON.stringify({ type: 'open', node: 'a' }));
    const missing = await proxy.next();
    expect(missing.type === 'error' && missing.message).toMatch(/^control line 2: .*`dir`/);
    proxy.send(JSON.stringify({ type: 'launch', node: 'a' }));
    const unknown = await proxy.next();
    expect(unknown.type === 'error' && unknown.message).toMatch(/^control line 3: .*`type`/);
    const open = {
      type: 'open',
      node: 'a',
      dir: join(base, 'bad'),
      net: ['https://example.com/'],
      named: [],
      forwards: [],
      limits: { max_connections: 1, max_bytes: 1 },
    };
    proxy.send(JSON.stringify(open));
    const entry = await proxy.next();
    expect(entry.type === 'error' && entry.message).toContain(
      '`net[0]`: `https://example.com/`: expected a host name, not a URL or a path',
    );
    proxy.send(JSON.stringify({ type: 'close', node: 'a' }));
    expect(await proxy.next()).toEqual({
      type: 'error',
      node: 'a',
      message: 'node `a` is not open',
    });
    proxy.child.stdin.end();
    expect(await proxy.exited()).toBe(0);
  });

  it('opens a node, serves its sessions, reports traffic, closes it, and exits when stdin ends', async () => {
    const proxy = new ProxyProcess();
    const dir = join(base, 'n1');
    proxy.send(
      JSON.stringify({
        type: 'open',
        node: 'n1',
        dir,
        net: [`127.0.0.1:${web.port}`],
        named: ['127.0.0.1'],
        forwards: [],
        limits: { max_connections: 4, max_bytes: 1_000_000 },
      }),
    );
    expect(await proxy.next()).toEqual({ type: 'opened', node: 'n1' });

    const session = await openSession(dir, 'curl');
    const answer = await proxyRequest(session.proxySock, `http://127.0.0.1:${web.port}/hello`);
    expect(answer.body).toBe('hello there');
    const refused = await proxyRequest(session.proxySock, 'http://example.com/');
    expect(refused.status).toBe(403);
    expect(await proxy.next()).toMatchObject({ type: 'refused', node: 'n1', host: 'example.com' });

    proxy.send(JSON.stringify({ type: 'close', node: 'n1' }));
    expect(await proxy.next()).toMatchObject({
      type: 'traffic',
      node: 'n1',
      command: 'curl',
      host: '127.0.0.1',
      port: web.port,
      connections: 1,
      bytes_down: 11,
    });
    expect(await proxy.next()).toEqual({ type: 'closed', node: 'n1' });
    expect(existsSync(dir)).toBe(false);

    // A node left open is closed when stdin ends.
    const other = join(base, 'n2');
    proxy.send(
      JSON.stringify({
        type: 'open',
        node: 'n2',
        dir: other,
        net: 'all',
        named: [],
        forwards: [],
        limits: { max_connections: 1, max_bytes: 1 },
      }),
    );
    expect(await proxy.next()).toEqual({ type: 'opened', node: 'n2' });
    proxy.child.stdin.end();
    expect(await proxy.exited()).toBe(0);
    expect(existsSync(other)).toBe(false);
  });
});
