import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { SandboxSettings } from '../protocol/index.js';
import { EgressProxy } from '../tools/egress/index.js';
import {
  netBridge,
  openEgressSession,
  prepareCommand,
  runCommand,
  systemBinary,
} from '../tools/index.js';

/** What `arbor doctor` says about one part. */
export interface EgressCheck {
  name: string;
  status: 'ok' | 'missing' | 'off' | 'absent';
  detail: string;
}

/** How long the whole round trip may take. */
const ROUND_TRIP_MS = 15_000;

/**
 * The egress path, end to end: a command in a real sandbox, with no network of its own, reaches
 * a server this check starts on loopback (named exactly, as an operator would) through the bridge
 * (`socat`) and the egress proxy, and one outside the grant is refused.
 */
export async function checkEgress(sandbox: SandboxSettings): Promise<EgressCheck> {
  const name = 'egress';
  if (sandbox.mode !== 'bwrap')
    return { name, status: 'absent', detail: 'no sandbox: commands are not contained' };
  const socat = systemBinary('socat');
  if (socat === undefined)
    return {
      name,
      status: 'missing',
      detail:
        'socat is not installed (Debian/Ubuntu: `apt-get install socat`): sandboxed commands will have no network',
    };
  const server = createServer((_req, res) => res.end('arbor-egress-ok'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const dir = mkdtempSync(path.join(tmpdir(), 'arbor-doctor-'));
  const proxy = new EgressProxy({ onReport: () => undefined });
  const signal = AbortSignal.timeout(ROUND_TRIP_MS);
  try {
    const entry = `127.0.0.1:${port}`;
    const opened = await proxy.open({
      type: 'open',
      node: 'doctor',
      dir: path.join(dir, 'n'),
      net: [entry],
      named: [entry],
      forwards: [],
      limits: { max_connections: 4, max_bytes: 1024 * 1024 },
    });
    if (opened.type !== 'opened')
      return {
        name,
        status: 'missing',
        detail: `the egress proxy could not open: ${JSON.stringify(opened)}`,
      };
    const session = await openEgressSession(path.join(dir, 'n', 'control.sock'), 'doctor', signal);
    const bridge = netBridge(session, socat);
    try {
      const prepared = prepareCommand({
        settings: sandbox,
        caveats: { fs_read: [], fs_write: [], net: [entry] },
        protect: [],
        cwd: dir,
        env: { PATH: '/usr/bin:/bin' },
        network: { kind: 'proxy', bridge },
      });
      if (!prepared.ok) return { name, status: 'missing', detail: prepared.message };
      const request = `GET http://${entry}/ HTTP/1.0\\r\\n\\r\\n`;
      // `shut-none`: the request is not followed by a half-close, which an HTTP server takes as the end.
      const result = await runCommand(
        `printf '${request}' | ${socat} -t 5 - TCP:127.0.0.1:3128,shut-none`,
        {
          cwd: dir,
          env: prepared.env,
          wrap: prepared.wrap,
          timeoutMs: ROUND_TRIP_MS,
          maxOutputBytes: 16 * 1024,
          killGraceMs: 500,
          signal,
        },
      );
      if (!result.output.includes('arbor-egress-ok'))
        return {
          name,
          status: 'missing',
          detail: `a sandboxed command could not reach a local server through the proxy: ${result.output.trim().slice(0, 200) || `exit code ${String(result.exitCode)}`}`,
        };
      return {
        name,
        status: 'ok',
        detail: `a sandboxed command reached a server named in net through ${socat} and the egress proxy`,
      };
    } finally {
      bridge.cleanup();
      session.close();
    }
  } catch (error) {
    return {
      name,
      status: 'missing',
      detail: error instanceof Error ? error.message : String(error),
    };
  } finally {
    await proxy.closeAll();
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
