import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { netBridge } from '../../../src/tools/sandbox/index.js';
import { execNetwork } from '../../../src/tools/builtin/exec-network.js';
import type { Caveats, SandboxSettings } from '../../../src/protocol/index.js';

const SESSION = {
  dir: '/tmp/arbor-egress-x/n1/s-1',
  forwards: [
    { host: 'db.internal', port: 5432, socket: '/tmp/arbor-egress-x/n1/s-1/fwd-0.sock' },
    { host: '10.0.0.5', port: 22, socket: '/tmp/arbor-egress-x/n1/s-1/fwd-1.sock' },
  ],
  close: () => undefined,
};

describe('the network bridge of a sandboxed command', () => {
  it('listens for the proxy and each forward on loopback, names forwards in /etc/hosts, and waits for every listener', () => {
    const bridge = netBridge(SESSION, '/usr/bin/socat');
    try {
      const dir = bridge.mounts.find((m) => 'dest' in m && m.dest === '/run/arbor-net');
      expect(dir).toBeDefined();
      const src = (dir as { src: string }).src;
      const script = readFileSync(path.join(src, 'init.sh'), 'utf8');
      expect(script).toContain(
        'TCP4-LISTEN:3128,bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:/run/arbor-egress/proxy.sock &',
      );
      expect(script).toContain(
        'TCP4-LISTEN:5432,bind=127.77.0.2,fork,reuseaddr UNIX-CONNECT:/run/arbor-egress/fwd-0.sock &',
      );
      expect(script).toContain('bind=127.77.0.3');
      // /proc/net/tcp spells 127.0.0.1:3128 and 127.77.0.2:5432 little-endian, in hex.
      expect(script).toContain('for want in 0100007F:0C38 02004D7F:1538 03004D7F:0016; do');
      expect(script.trimEnd().endsWith('exec "$@"')).toBe(true);
      const hosts = readFileSync(path.join(src, 'hosts'), 'utf8');
      expect(hosts).toContain('127.77.0.2 db.internal');
      expect(hosts).not.toContain('10.0.0.5');
      expect(bridge.notes).toEqual(['10.0.0.5:22 is reached at 127.77.0.3:22']);
      expect(bridge.mounts).toContainEqual({
        op: 'ro-bind',
        src: SESSION.dir,
        dest: '/run/arbor-egress',
        why: 'private',
      });
      expect(bridge.env).toMatchObject({
        HTTP_PROXY: 'http://127.0.0.1:3128',
        https_proxy: 'http://127.0.0.1:3128',
        ALL_PROXY: 'http://127.0.0.1:3128',
        NO_PROXY: 'localhost,127.0.0.1,::1',
        NODE_USE_ENV_PROXY: '1',
      });
      expect(bridge.entry).toEqual(['/bin/sh', '/run/arbor-net/init.sh']);
      bridge.cleanup();
      expect(existsSync(src)).toBe(false);
    } finally {
      bridge.cleanup();
    }
  });
});

describe("a command's network under its grant", () => {
  const signal = new AbortController().signal;
  const caveats = (net: Caveats['net']): Caveats => ({
    fs_read: [],
    fs_write: [],
    exec: 'all',
    net,
    max_calls: 'unlimited',
  });
  const bwrap: SandboxSettings = { mode: 'bwrap' };

  it('is none under net = none, and never the host unless the operator opted out for net = all', async () => {
    const at = (net: Caveats['net'], sandbox: SandboxSettings, egress?: string) =>
      execNetwork({ caveats: caveats(net), sandbox, egress }, 'true', signal);
    expect((await at([], bwrap)).network).toEqual({ kind: 'none' });
    expect((await at('all', { mode: 'bwrap', network: 'host' })).network).toEqual({ kind: 'host' });
    // A host list goes through the proxy even under the opt-out.
    const listed = await at(['example.com'], { mode: 'bwrap', network: 'host' });
    expect(listed.network.kind).toBe('none');
    expect(listed.network).toMatchObject({ why: 'this agent has no egress proxy' });
    const unreachable = await at('all', bwrap, '/nonexistent/control.sock');
    expect(unreachable.network.kind).toBe('none');
    expect(unreachable.network).toMatchObject({
      why: expect.stringContaining('the egress proxy cannot be reached') as unknown,
    });
  });
});
