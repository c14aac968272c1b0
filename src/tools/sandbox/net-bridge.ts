import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { isIPv4, isIPv6 } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { EgressSession } from './egress-session.js';
import type { Mount } from './sandbox-mounts.js';

/** Where the command's egress session (its sockets) is mounted inside the sandbox. */
const SESSION_MOUNT = '/run/arbor-egress';
/** Where the bridge's start script and hosts file are mounted inside the sandbox. */
const BRIDGE_MOUNT = '/run/arbor-net';
/** The loopback port inside the sandbox where the proxy is reached. */
const PROXY_PORT = 3128;
/** Raw TCP forwards listen on `127.77.0.<n>`: one loopback address per `host:port` entry. */
const FORWARD_NET = '127.77.0.';
/** How many 5 ms waits a listener gets to come up before the command is not started. */
const BRIDGE_WAITS = 2_000;

/** What a command needs to reach the network through its egress session. */
export interface NetBridge {
  mounts: Mount[];
  /** The proxy variables, for the command's environment. */
  env: Record<string, string>;
  /** Started inside the sandbox before the command: the bridge, then `exec "$@"`. */
  entry: string[];
  /** What the command is told: where each raw TCP forward listens. */
  notes: string[];
  /** Removes the bridge's files once the command has ended. */
  cleanup(): void;
}

/**
 * The bridge between a command's own network namespace, where only `lo` is up, and its egress
 * session's Unix sockets: `socat` listens on `127.0.0.1:3128` for the HTTP proxy and on
 * `127.77.0.<n>:<port>` for each raw TCP forward, whose name the sandbox's `/etc/hosts` gives
 * that address. The start script waits until every listener is up, so the command's first
 * connection never races the bridge.
 */
export function netBridge(session: EgressSession, socat: string): NetBridge {
  const dir = mkdtempSync(path.join(tmpdir(), 'arbor-net-'));
  const listeners = [
    `${socat} -lf /dev/null TCP4-LISTEN:${PROXY_PORT},bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:${SESSION_MOUNT}/proxy.sock`,
  ];
  const waits = [procNetTcp('127.0.0.1', PROXY_PORT)];
  const hosts = ['127.0.0.1 localhost', '::1 localhost ip6-localhost'];
  const notes: string[] = [];
  session.forwards.forEach((forward, index) => {
    const address = `${FORWARD_NET}${index + 2}`;
    const socket = `${SESSION_MOUNT}/${path.basename(forward.socket)}`;
    listeners.push(
      `${socat} -lf /dev/null TCP4-LISTEN:${forward.port},bind=${address},fork,reuseaddr UNIX-CONNECT:${socket}`,
    );
    waits.push(procNetTcp(address, forward.port));
    const literal = isIPv4(forward.host) || isIPv6(forward.host);
    if (literal)
      notes.push(`${forward.host}:${forward.port} is reached at ${address}:${forward.port}`);
    else hosts.push(`${address} ${forward.host}`);
  });
  const script = [
    '#!/bin/sh',
    "# arbor: the command's only way out is arbor's egress proxy, reached through these bridges.",
    ...listeners.map((line) => `${line} &`),
    `for want in ${waits.join(' ')}; do`,
    '  n=0',
    '  while ! grep -q " $want 00000000:0000 0A" /proc/net/tcp; do',
    '    n=$((n + 1))',
    `    if [ "$n" -gt ${BRIDGE_WAITS} ]; then echo "arbor: the network bridge did not start" >&2; exit 125; fi`,
    '    sleep 0.005 2>/dev/null || :',
    '  done',
    'done',
    'exec "$@"',
    '',
  ].join('\n');
  writeFileSync(path.join(dir, 'init.sh'), script, { mode: 0o600 });
  writeFileSync(path.join(dir, 'hosts'), `${hosts.join('\n')}\n`, { mode: 0o600 });
  const proxy = `http://127.0.0.1:${PROXY_PORT}`;
  const loopback = 'localhost,127.0.0.1,::1';
  return {
    mounts: [
      { op: 'ro-bind', src: session.dir, dest: SESSION_MOUNT, why: 'private' },
      { op: 'ro-bind', src: dir, dest: BRIDGE_MOUNT, why: 'private' },
      { op: 'ro-bind', src: path.join(dir, 'hosts'), dest: '/etc/hosts', why: 'private' },
    ],
    env: {
      HTTP_PROXY: proxy,
      HTTPS_PROXY: proxy,
      ALL_PROXY: proxy,
      NO_PROXY: loopback,
      http_proxy: proxy,
      https_proxy: proxy,
      all_proxy: proxy,
      no_proxy: loopback,
      // Node's own `fetch` honours the variables when told to (22.21+, 24+).
      NODE_USE_ENV_PROXY: '1',
    },
    entry: ['/bin/sh', `${BRIDGE_MOUNT}/init.sh`],
    notes,
    cleanup: () => {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** An IPv4 listener's local address as `/proc/net/tcp` writes it (`0100007F:0C38`). */
function procNetTcp(address: string, port: number): string {
  const hex = address
    .split('.')
    .map((part) => Number(part).toString(16).toUpperCase().padStart(2, '0'))
    .reverse()
    .join('');
  return `${hex}:${port.toString(16).toUpperCase().padStart(4, '0')}`;
}
