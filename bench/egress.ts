import { mkdtemp, rm } from 'node:fs/promises';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_EGRESS_LIMITS } from '../src/supervisor/index.js';
import { EgressProxy, type EgressOpen, type EgressReport } from '../src/tools/egress/index.js';
import { openEgressSession } from '../src/tools/index.js';
import {
  bulkServer,
  cpuMs,
  dial,
  download,
  echoServer,
  firstByteBack,
  getOnce,
  ProxyProcess,
  smallHttpServer,
  tunnel,
  upload,
  type LocalServer,
} from './egress-parts.js';
import { median, percentile, type BenchResult } from './stats.js';

/**
 * What the egress proxy (`src/tools/egress/`) costs a sandboxed command's network, against a
 * local HTTP server, a TCP echo server and a TCP bulk server on 127.0.0.1, each named exactly in
 * the node's `net` and `named`. Every measure is taken directly and through the proxy, in this
 * process (`EgressProxy`) and as its own process (as the supervisor runs it), in rounds whose
 * order rotates so drift falls on every way alike:
 * - per connection: a small GET with a connection of its own (absolute-form, over `proxy.sock`),
 *   and a tunnel's setup (`CONNECT` until the first byte comes back from the echo server, or a
 *   `fwd-<i>.sock` connection), against a direct GET and a direct TCP connect;
 * - per MiB: moving 64 MiB each way through a tunnel (its setup not timed), throughput and CPU.
 * The client, the servers and the in-process proxy share this process's one thread; the proxy
 * process has its own, as it has beside a real command. Not measured: the bridge inside the
 * sandbox (socat, from 127.0.0.1:3128 to `proxy.sock`), a hop of its own on a real command's path.
 */
const CONNECTIONS = 300;
const WARMUP = 20;
const TRANSFERS = 5;
const TRANSFER_MIB = 64;
const MIB = 1024 * 1024;
const TRANSFER_BYTES = TRANSFER_MIB * MIB;

type Session = Awaited<ReturnType<typeof openEgressSession>>;

/** The servers, both proxies, a session in each, and the proxy process's reports so far. */
interface Rig {
  http: LocalServer;
  echo: LocalServer;
  bulk: LocalServer;
  base: string;
  inProcess: EgressProxy;
  inReports: EgressReport[];
  inSession: Session;
  child: ProxyProcess;
  childSession: Session;
}

/** A way to a TCP server: a socket that carries bytes to `port`, once it is open. */
interface Way {
  name: string;
  open(port: number): Promise<Socket>;
  /** The proxy process this way goes through: its CPU is counted too. */
  proxyPid?: number;
}

export async function benchEgress(): Promise<BenchResult> {
  const rig = await startRig();
  try {
    const ways = waysOf(rig);
    const gets = await timeGets(rig);
    const setups = await timeSetups(rig, ways);
    const transfers = await timeTransfers(rig, ways);
    const counted = await closeAndCount(rig);
    return {
      name: 'egress',
      metrics: {
        [`connections per way (after ${WARMUP} of warm-up)`]: CONNECTIONS,
        ...gets,
        ...setups,
        'transfers per way and direction': `${TRANSFERS} × ${TRANSFER_MIB} MiB`,
        ...transfers,
        'bytes in the traffic lines (bulk port)': counted,
      },
    };
  } finally {
    await disposeRig(rig);
  }
}

async function startRig(): Promise<Rig> {
  const [http, echo, bulk] = await Promise.all([smallHttpServer(), echoServer(), bulkServer()]);
  const base = await mkdtemp(join(tmpdir(), 'arbor-bench-egress-'));
  const hosts = [http, echo, bulk].map((server) => `127.0.0.1:${server.port}`);
  const open = (node: string): EgressOpen => ({
    type: 'open',
    node,
    dir: join(base, node),
    net: hosts,
    named: hosts,
    forwards: [echo, bulk].map((server) => ({ host: '127.0.0.1', port: server.port })),
    limits: {
      max_connections: DEFAULT_EGRESS_LIMITS.maxConnections,
      max_bytes: DEFAULT_EGRESS_LIMITS.maxBytes,
    },
  });
  const signal = new AbortController().signal;
  const inReports: EgressReport[] = [];
  const inProcess = new EgressProxy({ onReport: (line) => inReports.push(line) });
  const opened = await inProcess.open(open('in'));
  if (opened.type !== 'opened') throw new Error(`open failed: ${JSON.stringify(opened)}`);
  const inSession = await openEgressSession(join(base, 'in', 'control.sock'), 'bench', signal);
  const child = new ProxyProcess();
  await child.open(open('proc'));
  const childSession = await openEgressSession(join(base, 'proc', 'control.sock'), 'bench', signal);
  return { http, echo, bulk, base, inProcess, inReports, inSession, child, childSession };
}

async function disposeRig(rig: Rig): Promise<void> {
  rig.inSession.close();
  rig.childSession.close();
  await rig.inProcess.closeAll();
  await rig.child.stop();
  await Promise.all([rig.http.close(), rig.echo.close(), rig.bulk.close()]);
  await rm(rig.base, { recursive: true, force: true });
}

function waysOf(rig: Rig): Way[] {
  const pid = rig.child.pid;
  const forward = (port: number): string => {
    const found = rig.childSession.forwards.find((f) => f.port === port);
    if (found === undefined) throw new Error(`no forward to port ${port}`);
    return found.socket;
  };
  return [
    { name: 'direct', open: (port) => dial({ host: '127.0.0.1', port }) },
    {
      name: 'CONNECT, in-process proxy',
      open: (port) => tunnel(join(rig.inSession.dir, 'proxy.sock'), `127.0.0.1:${port}`),
    },
    {
      name: 'CONNECT, proxy process',
      open: (port) => tunnel(join(rig.childSession.dir, 'proxy.sock'), `127.0.0.1:${port}`),
      proxyPid: pid,
    },
    {
      name: '`fwd-<i>.sock`, proxy process',
      open: (port) => dial({ path: forward(port) }),
      proxyPid: pid,
    },
  ];
}

/** Runs every way once a round, in an order that rotates; the milliseconds of each. */
async function interleave(
  ways: Record<string, () => Promise<void>>,
  rounds: number,
): Promise<Record<string, number[]>> {
  const names = Object.keys(ways);
  const samples: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < names.length; i++) {
      const name = names[(round + i) % names.length]!;
      const start = process.hrtime.bigint();
      await ways[name]!();
      samples[name]!.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
  }
  return samples;
}

/** Warms up, then times every way, and the proxy process's CPU per connection over the timing. */
async function timeConnections(
  rig: Rig,
  ways: Record<string, () => Promise<void>>,
): Promise<{ samples: Record<string, number[]>; proxyCpuUs: number }> {
  await interleave(ways, WARMUP);
  const before = cpuMs(rig.child.pid);
  const samples = await interleave(ways, CONNECTIONS);
  return { samples, proxyCpuUs: ((cpuMs(rig.child.pid) - before) * 1e3) / CONNECTIONS };
}

async function timeGets(rig: Rig): Promise<Record<string, string>> {
  const path = `http://127.0.0.1:${rig.http.port}/small`;
  const { samples, proxyCpuUs } = await timeConnections(rig, {
    direct: () => getOnce({ host: '127.0.0.1', port: rig.http.port, path: '/small' }),
    'in-process proxy': () => getOnce({ socketPath: join(rig.inSession.dir, 'proxy.sock'), path }),
    'proxy process': () => getOnce({ socketPath: join(rig.childSession.dir, 'proxy.sock'), path }),
  });
  const direct = samples.direct!;
  const inProcess = samples['in-process proxy']!;
  const child = samples['proxy process']!;
  return {
    'GET, direct': latency(direct),
    'GET through `proxy.sock`, in-process proxy': latency(inProcess),
    'GET through `proxy.sock`, proxy process': latency(child),
    'added per GET p50, in-process / process': `${added(direct, inProcess)} / ${added(direct, child)} ms`,
    'proxy process CPU per GET': `${proxyCpuUs.toFixed(0)} µs`,
  };
}

async function timeSetups(rig: Rig, ways: Way[]): Promise<Record<string, string>> {
  const setup = (way: Way) => async (): Promise<void> => {
    const socket = await way.open(rig.echo.port);
    await firstByteBack(socket);
    socket.destroy();
  };
  const { samples, proxyCpuUs } = await timeConnections(
    rig,
    Object.fromEntries(ways.map((way) => [way.name, setup(way)])),
  );
  const direct = samples.direct!;
  const rows: Record<string, string> = {};
  for (const way of ways) {
    const times = samples[way.name]!;
    const label = way.name === 'direct' ? 'TCP connect, direct' : way.name;
    rows[`${label}: open + first byte back`] =
      way.name === 'direct' ? latency(times) : `${latency(times)} (+${added(direct, times)} ms)`;
  }
  // Both process ways took part in every round: the CPU is theirs together.
  rows['proxy process CPU per tunnel (CONNECT and `fwd` averaged)'] =
    `${(proxyCpuUs / 2).toFixed(0)} µs`;
  return rows;
}

interface TransferSamples {
  mibPerS: number[];
  /** This process's CPU (client, servers, and the in-process proxy), µs per MiB. */
  cpuUs: number[];
  /** The proxy process's CPU, µs per MiB (0 for the ways that do not use it). */
  proxyCpuUs: number[];
}

async function timeTransfers(rig: Rig, ways: Way[]): Promise<Record<string, string>> {
  const samples = new Map<string, TransferSamples>();
  for (let round = 0; round < TRANSFERS; round++) {
    for (const direction of ['down', 'up'] as const) {
      for (let i = 0; i < ways.length; i++) {
        const way = ways[(round + i) % ways.length]!;
        const key = `${direction}\n${way.name}`;
        const entry = samples.get(key) ?? { mibPerS: [], cpuUs: [], proxyCpuUs: [] };
        samples.set(key, entry);
        await transferOnce(rig, way, direction, entry);
      }
    }
  }
  const rows: Record<string, string> = {};
  for (const direction of ['down', 'up'] as const) {
    const direct = samples.get(`${direction}\ndirect`)!;
    for (const way of ways) {
      const entry = samples.get(`${direction}\n${way.name}`)!;
      const cpu = median(entry.cpuUs);
      const proxyCpu = median(entry.proxyCpuUs);
      const rate = `${median(entry.mibPerS).toFixed(0)} MiB/s`;
      const cpuText =
        way.proxyPid === undefined
          ? `${cpu.toFixed(0)} µs CPU/MiB`
          : `${(cpu + proxyCpu).toFixed(0)} µs CPU/MiB (this process ${cpu.toFixed(0)} + proxy ${proxyCpu.toFixed(0)})`;
      const ratio =
        way.name === 'direct'
          ? ''
          : `, ${(median(entry.mibPerS) / median(direct.mibPerS)).toFixed(2)}× direct`;
      rows[`${TRANSFER_MIB} MiB ${direction}, ${way.name}`] = `${rate}${ratio}, ${cpuText}`;
    }
  }
  return rows;
}

async function transferOnce(
  rig: Rig,
  way: Way,
  direction: 'down' | 'up',
  into: TransferSamples,
): Promise<void> {
  const socket = await way.open(rig.bulk.port);
  const proxyBefore = way.proxyPid === undefined ? 0 : cpuMs(way.proxyPid);
  const cpuBefore = process.cpuUsage();
  const start = process.hrtime.bigint();
  await (direction === 'down' ? download : upload)(socket, TRANSFER_BYTES);
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const cpu = process.cpuUsage(cpuBefore);
  const proxyCpu = way.proxyPid === undefined ? 0 : cpuMs(way.proxyPid) - proxyBefore;
  socket.destroy();
  into.mibPerS.push(TRANSFER_MIB / seconds);
  into.cpuUs.push((cpu.user + cpu.system) / TRANSFER_MIB);
  into.proxyCpuUs.push((proxyCpu * 1e3) / TRANSFER_MIB);
}

/**
 * Closes both nodes and checks their reports: no refusal or error, and the bulk port's traffic
 * as many bytes as the transfers moved (request lines and `k` answers included).
 */
async function closeAndCount(rig: Rig): Promise<string> {
  rig.inSession.close();
  rig.childSession.close();
  const closed = await rig.inProcess.close('in');
  if (closed.type !== 'closed') throw new Error(`close failed: ${JSON.stringify(closed)}`);
  const proxies = [
    { proxy: 'in-process', lines: rig.inReports, ways: 1 },
    { proxy: 'process', lines: await rig.child.close('proc'), ways: 2 },
  ];
  // Per transfer through a way: one direction's payload, and the other's request line or answer.
  const up = TRANSFER_BYTES + `up ${TRANSFER_BYTES}\n`.length + `down ${TRANSFER_BYTES}\n`.length;
  const down = TRANSFER_BYTES + 'k'.length;
  const parts: string[] = [];
  for (const { proxy, lines, ways } of proxies) {
    const wrong = lines.filter((line) => line.type === 'refused' || line.type === 'error');
    if (wrong.length > 0) throw new Error(`the ${proxy} proxy reported ${JSON.stringify(wrong)}`);
    const bulk = lines.find((line) => line.type === 'traffic' && line.port === rig.bulk.port);
    if (bulk?.type !== 'traffic') throw new Error(`the ${proxy} proxy reported no bulk traffic`);
    const expected = { up: TRANSFERS * ways * up, down: TRANSFERS * ways * down };
    const isExact = bulk.bytes_up === expected.up && bulk.bytes_down === expected.down;
    parts.push(
      isExact
        ? `${proxy}: as moved`
        : `${proxy}: ${bulk.bytes_up} up / ${bulk.bytes_down} down, moved ${expected.up} / ${expected.down}`,
    );
  }
  return parts.join('; ');
}

function latency(values: number[]): string {
  return `p50 ${median(values).toFixed(3)} ms, p95 ${percentile(values, 95).toFixed(3)} ms`;
}

function added(base: number[], values: number[]): string {
  return (median(values) - median(base)).toFixed(3);
}
