import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import {
  createServer as createTcpServer,
  type AddressInfo,
  type Server as TcpServer,
} from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { fakeLlm } from '../helpers/fake-llm.js';
import { attr, otlpReceiver as receiver } from '../helpers/otlp-receiver.js';
import { describeNeeding } from '../helpers/needs.js';
import { runArbor } from '../helpers/run-arbor.js';
import { HAS_SANDBOX, SANDBOX } from '../helpers/sandbox.js';
import { rounds, scriptedRun, workspace } from '../helpers/scripted-run.js';
import { SqliteStore } from '../../src/store/index.js';
import { systemBinary } from '../../src/tools/sandbox/index.js';

/**
 * Sandboxed commands and the network, through real `arbor run`s: every command has a network
 * namespace of its own, and its only way out is the node's egress proxy, held to `net`. The
 * servers the commands aim at listen on 127.0.0.2 (a loopback address outside `NO_PROXY`, so
 * clients go through the proxy) and are named exactly where they must be reached.
 */

const SOCAT = systemBinary('socat');
const missing = !HAS_SANDBOX
  ? `bubblewrap (${SANDBOX.reason ?? 'unknown reason'})`
  : SOCAT === undefined
    ? 'socat is not installed'
    : undefined;

function describeWithEgress(name: string, body: () => void): void {
  describeNeeding(name, 'bubblewrap and socat', missing, body);
}

/** One exec call per command, all in one step, then an answer. */
function execAll(...commands: string[]): Record<string, unknown>[] {
  return [
    { tool_calls: commands.map((command) => ({ name: 'exec', args: { command } })) },
    { text: 'done' },
  ];
}

const HOST = '127.0.0.2';
let http: Server;
let port: number;
let hits = 0;
let echo: TcpServer;
let echoPort: number;
let abstract: TcpServer;
const abstractName = `arbor-egress-test-${process.pid}`;
let repo: string;

/** A package document as a registry serves it, for `npm view`. */
function packument(base: string): string {
  const version = {
    name: 'arbor-probe',
    version: '1.2.3',
    description: 'seen through the proxy',
    dist: {
      tarball: `${base}/arbor-probe/-/arbor-probe-1.2.3.tgz`,
      shasum: createHash('sha1').update('x').digest('hex'),
    },
  };
  return JSON.stringify({
    name: 'arbor-probe',
    'dist-tags': { latest: '1.2.3' },
    versions: { '1.2.3': version },
    time: { '1.2.3': '2026-01-01T00:00:00.000Z' },
  });
}

beforeAll(async () => {
  // A bare repository served over git's dumb HTTP protocol: `git ls-remote` reads `info/refs`.
  const dir = mkdtempSync(path.join(tmpdir(), 'arbor-egress-repo-'));
  const work = path.join(dir, 'work');
  repo = path.join(dir, 'repo.git');
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'pipe' });
  git('init', '-q', '-b', 'main', work);
  execFileSync(
    'git',
    ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '--allow-empty', '-m', 'one'],
    { cwd: work },
  );
  git('clone', '-q', '--bare', work, repo);
  execFileSync('git', ['update-server-info'], { cwd: repo });
  http = createHttpServer((req, res) => {
    hits += 1;
    const url = req.url ?? '/';
    if (url.startsWith('/repo.git/')) {
      try {
        res.end(readFileSync(path.join(repo, url.slice('/repo.git/'.length).split('?')[0] ?? '')));
      } catch {
        res.statusCode = 404;
        res.end();
      }
      return;
    }
    if (url === '/arbor-probe') {
      res.setHeader('content-type', 'application/json');
      res.end(packument(`http://${HOST}:${port}`));
      return;
    }
    res.end('HTTP-SERVER-REACHED');
  });
  await new Promise<void>((resolve) => http.listen(0, HOST, resolve));
  port = (http.address() as AddressInfo).port;
  echo = createTcpServer((socket) => {
    socket.on('data', (data) => socket.end(`echo ${data.toString().trim()}\n`));
  });
  await new Promise<void>((resolve) => echo.listen(0, HOST, resolve));
  echoPort = (echo.address() as AddressInfo).port;
  // A listener in the host's abstract socket namespace: X11 and D-Bus live there on a desktop.
  abstract = createTcpServer((socket) => socket.end('abstract reached\n'));
  await new Promise<void>((resolve) => abstract.listen({ path: `\0${abstractName}` }, resolve));
});

afterAll(async () => {
  http.closeAllConnections();
  await Promise.all([http, echo, abstract].map((s) => new Promise((resolve) => s.close(resolve))));
});

describeWithEgress('sandboxed commands reach what net names, through the egress proxy', () => {
  it('lets curl, git ls-remote and npm view reach a named host; refuses one outside the list, saying why', async () => {
    const { ws } = await workspace();
    hits = 0;
    const base = `http://${HOST}:${port}`;
    const run = await scriptedRun({
      cwd: ws,
      args: ['--net', `${HOST}:${port}`],
      script: execAll(
        `curl -s ${base}/`,
        `git ls-remote ${base}/repo.git`,
        `npm view --registry ${base}/ arbor-probe description --no-update-notifier --fund=false --audit=false`,
        `curl -s -i http://127.0.0.3:${port}/`,
      ),
    });
    expect(run.code, run.stderr).toBe(0);
    const [curl, lsRemote, npmView, outside] = run.results;
    expect(curl).toContain('HTTP-SERVER-REACHED');
    expect(lsRemote).toMatch(/[0-9a-f]{40}\s+refs\/heads\/main/);
    expect(npmView).toContain('seen through the proxy');
    expect(outside).toContain('403');
    expect(outside).toContain(`arbor egress: refused 127.0.0.3:${port}`);
    const refused = run.events.filter((e) => e.event === 'net.refused');
    expect(refused).toContainEqual(
      expect.objectContaining({
        host: '127.0.0.3',
        port,
        command: `curl -s -i http://127.0.0.3:${port}/`,
      }),
    );
    const traffic = run.events.filter((e) => e.event === 'net.traffic');
    expect(traffic).toContainEqual(
      expect.objectContaining({ host: HOST, port, command: `curl -s ${base}/`, connections: 1 }),
    );
    expect(traffic.every((e) => typeof e.bytes_down === 'number')).toBe(true);
  });

  it('forwards raw TCP to a named host:port, and nowhere else', async () => {
    const { ws } = await workspace();
    const run = await scriptedRun({
      cwd: ws,
      args: ['--net', `${HOST}:${echoPort}`],
      script: execAll(
        `printf 'ping\\n' | socat -t 5 - TCP:127.77.0.2:${echoPort}`,
        `printf 'ping\\n' | socat -t 2 - TCP:${HOST}:${echoPort} || echo direct-failed`,
      ),
    });
    expect(run.code, run.stderr).toBe(0);
    const [forwarded, direct] = run.results;
    expect(forwarded).toContain(`${HOST}:${echoPort} is reached at 127.77.0.2:${echoPort}`);
    expect(forwarded).toContain('echo ping');
    expect(direct).toContain('direct-failed');
    expect(direct).not.toContain('echo ping');
  });

  it('refuses loopback, private, metadata and mapped addresses under `all`, and names resolving to loopback', async () => {
    const { ws } = await workspace();
    hits = 0;
    const run = await scriptedRun({
      cwd: ws,
      script: execAll(
        `curl -s -i http://${HOST}:${port}/`,
        'curl -s -i http://10.0.0.1/',
        'curl -s -i http://169.254.169.254/latest/meta-data/',
        `curl -s -i "http://[::127.0.0.1]:${port}/"`,
        `curl -s -i "http://[::ffff:${HOST}]:${port}/"`,
        `curl --noproxy '' -s -i http://localhost:${port}/`,
      ),
    });
    expect(run.code, run.stderr).toBe(0);
    for (const result of run.results) {
      expect(result).toContain('403');
      expect(result).toContain('arbor egress: refused');
    }
    expect(run.results[5]).toMatch(/localhost.*127\.0\.0\.1|loopback/);
    expect(hits).toBe(0);
  });

  it('never reaches a raw TCP port or a host abstract socket directly, under any net', async () => {
    for (const net of ['all', `${HOST}:${port}`, 'none']) {
      const { ws } = await workspace();
      hits = 0;
      const run = await scriptedRun({
        cwd: ws,
        args: ['--net', net],
        script: execAll(
          `socat -t 2 - ABSTRACT-CONNECT:${abstractName} < /dev/null || echo abstract-failed`,
          `curl --noproxy '*' -s -m 3 http://${HOST}:${port}/ || echo direct-failed`,
        ),
      });
      expect(run.code, run.stderr).toBe(0);
      const [viaAbstract, direct] = run.results;
      expect(viaAbstract, net).toContain('abstract-failed');
      expect(viaAbstract, net).not.toContain('abstract reached');
      expect(direct, net).toContain('direct-failed');
      expect(hits, net).toBe(0);
    }
  });

  it('holds a child to its narrowed list: what its parent may reach, it may not', async () => {
    const { ws } = await workspace();
    const other = `${HOST}:${echoPort}`;
    const llm = await fakeLlm({
      scripts: [
        {
          match: { contains: 'Child: curl' },
          steps: [
            {
              tool_calls: [
                { name: 'exec', args: { command: `curl -s -i http://${HOST}:${port}/` } },
              ],
            },
            { text: 'child done' },
          ],
        },
        {
          steps: rounds(
            {
              tool_calls: [
                {
                  name: 'subagent.run',
                  args: { instruction: 'Child: curl', caveats: { net: [other] } },
                },
              ],
            },
            { text: 'parent done' },
          ),
        },
      ],
    });
    const run = await runArbor(
      ['run', '--intel', llm.url, '--model', 'm', '--net', `${HOST}:${port},${other}`, 'Parent.'],
      { cwd: ws, env: { ARBOR_DB: '' } },
    );
    expect(run.code, run.stderr).toBe(0);
    const child = llm.requests
      .map((r) => r.body as { messages: { role: string; content: string }[] })
      .filter((b) => b.messages.some((m) => m.content === 'Child: curl'))
      .at(-1);
    const result = child?.messages.find((m) => m.role === 'tool')?.content ?? '';
    expect(result).toContain(`arbor egress: refused ${HOST}:${port}`);
    expect(result).not.toContain('HTTP-SERVER-REACHED');
  });

  it("traces each command's traffic as a span under its node's", async () => {
    const collector = await receiver();
    const { ws } = await workspace();
    const run = await scriptedRun({
      cwd: ws,
      args: ['--net', `${HOST}:${port}`],
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      },
      script: execAll(`curl -s http://${HOST}:${port}/`),
    });
    expect(run.code, run.stderr).toBe(0);
    const node = collector.spans.find((s) => s.name === 'invoke_agent node 0');
    const egress = collector.spans.find((s) => s.name === `egress ${HOST}:${port}`);
    expect(egress?.parentSpanId).toBe(node?.spanId);
    expect(attr(egress, 'arbor.command')).toBe(`curl -s http://${HOST}:${port}/`);
    expect(attr(egress, 'arbor.egress.connections')).toBe(1);
  });

  it("gives the host network only on the operator's opt-out, and says so at the start", async () => {
    const { ws, base } = await workspace();
    hits = 0;
    const db = path.join(base, 'arbor.db');
    const run = await scriptedRun({
      cwd: ws,
      args: ['--sandbox-network', 'host'],
      env: { ARBOR_DB: db },
      script: execAll(`curl -s --noproxy '*' http://${HOST}:${port}/`),
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.results[0]).toContain('HTTP-SERVER-REACHED');
    expect(hits).toBe(1);
    expect(run.stderr).toContain("share this machine's network");
    const runId = /arbor: run (run_[0-9a-z]+)/.exec(run.stderr)?.[1] ?? '';
    const store = new SqliteStore(db);
    const kinds = store.listEvents(runId).map((e) => e.kind);
    store.close();
    expect(kinds).toContain('sandbox.host_network');
  });

  it.runIf(Number(process.versions.node.split('.')[0]) >= 24)(
    "lets Node's own fetch through the proxy where Node honours NODE_USE_ENV_PROXY",
    async () => {
      const { ws } = await workspace();
      const run = await scriptedRun({
        cwd: ws,
        args: ['--net', `${HOST}:${port}`],
        script: execAll(
          `node -e "fetch('http://${HOST}:${port}/').then(r => r.text()).then(console.log, e => console.log('fetch-failed', e.cause?.code))"`,
        ),
      });
      expect(run.code, run.stderr).toBe(0);
      expect(run.results[0]).toContain('HTTP-SERVER-REACHED');
    },
  );
});
