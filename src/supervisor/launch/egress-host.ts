import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { grantsNet, parseNetEntry } from '../../authority/index.js';
import {
  NdjsonReader,
  type RunEventBody,
  type RunEventBodyOf,
  type SpawnPayload,
} from '../../protocol/index.js';
import {
  decodeEgressReport,
  proxyMainPath,
  type EgressOpen,
  type EgressReport,
} from '../../tools/egress/index.js';

type EgressForward = EgressOpen['forwards'][number];

/** What a node's egress is held to, besides its `net`. */
export interface EgressHostLimits {
  maxConnections: number;
  maxBytes: number;
}

/** What a node's commands may hold and move through the egress proxy, unless told otherwise. */
export const DEFAULT_EGRESS_LIMITS: EgressHostLimits = {
  maxConnections: 64,
  maxBytes: 4 * 1024 ** 3,
};

/** How long the proxy has to open or close a node. */
const ANSWER_MS = 10_000;

/**
 * The run's egress proxy, as the supervisor (or a fleet worker) sees it: one process, started on
 * first use with an empty environment (it parses hostile input and needs no secret), holding one
 * directory per node whose commands may reach the network. `open` gives the node's control socket
 * for its payload (`egress.control`); `close`, when the node ends, has the proxy report the
 * node's last traffic. What the proxy reports — each refusal, each command's traffic per host —
 * becomes the node's `net.refused` and `net.traffic` events.
 */
export class EgressHost {
  readonly #limits: EgressHostLimits;
  readonly #record: (nodeId: string, event: RunEventBody) => void;
  #process: ChildProcessWithoutNullStreams | undefined;
  #base: string | undefined;
  /** Why the proxy is not there (it could not start, or it died): nodes open without a way out. */
  #broken: string | undefined;
  readonly #waiting = new Map<string, (answer: EgressReport) => void>();
  /** Where a node's events go when not to the host's `record` (a fleet worker's up-stream). */
  readonly #recorders = new Map<string, (event: NetEvent) => void>();
  #count = 0;

  constructor(options: {
    limits: EgressHostLimits;
    record: (nodeId: string, event: RunEventBody) => void;
  }) {
    this.#limits = options.limits;
    this.#record = options.record;
  }

  /** The directory every node's sockets are under: no node may read or write it. */
  get base(): string | undefined {
    return this.#base;
  }

  /**
   * Opens the node in the proxy when its commands are to reach the network through it: its payload
   * then carries the control socket, and the proxy's directory joins its protected paths.
   * Otherwise (no sandbox, no `net`, no `exec`, the host's network) the payload is returned as it
   * is. A proxy that cannot start leaves the node without a way out; its commands are told why.
   */
  async open(
    nodeId: string,
    payload: SpawnPayload,
    record?: (event: NetEvent) => void,
  ): Promise<SpawnPayload> {
    if (!needsEgress(payload)) return payload;
    if (record !== undefined) this.#recorders.set(nodeId, record);
    const proxy = this.#start();
    if (proxy === undefined || this.#base === undefined) return payload;
    this.#count += 1;
    const dir = path.join(this.#base, `n${this.#count}`);
    const line: EgressOpen = {
      type: 'open',
      node: nodeId,
      dir,
      net: payload.caveats.net,
      named: payload.named_hosts,
      forwards: forwardsOf(payload.caveats.net),
      limits: { max_connections: this.#limits.maxConnections, max_bytes: this.#limits.maxBytes },
    };
    const answer = await this.#ask(nodeId, line);
    if (answer?.type !== 'opened') return payload;
    return {
      ...payload,
      egress: { control: path.join(dir, 'control.sock') },
      protected_paths: [
        ...payload.protected_paths,
        { path: this.#base, kind: 'dir', readable: false },
      ],
    };
  }

  /** The node has ended: its sessions close and its traffic is reported. */
  async close(nodeId: string): Promise<void> {
    if (this.#process !== undefined && this.#broken === undefined)
      await this.#ask(nodeId, { type: 'close', node: nodeId });
    this.#recorders.delete(nodeId);
  }

  /** Stops the proxy (it closes every node first) and removes its directory. */
  async shutdown(): Promise<void> {
    const proxy = this.#process;
    if (proxy?.exitCode === null && proxy.signalCode === null) {
      const exited = new Promise<void>((resolve) => {
        proxy.once('exit', () => {
          resolve();
        });
      });
      proxy.stdin.end();
      const timer = setTimeout(() => {
        proxy.kill('SIGKILL');
      }, ANSWER_MS);
      await exited;
      clearTimeout(timer);
    }
    if (this.#base !== undefined) rmSync(this.#base, { recursive: true, force: true });
  }

  #start(): ChildProcessWithoutNullStreams | undefined {
    if (this.#broken !== undefined) return undefined;
    if (this.#process !== undefined) return this.#process;
    try {
      // Short: a Unix socket's path holds at most 107 bytes.
      this.#base = mkdtempSync(path.join(tmpdir(), 'arbor-egress-'));
      const proxy = spawn(process.execPath, [proxyMainPath()], {
        env: {},
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      this.#process = proxy;
      const reader = new NdjsonReader(decodeEgressReport, { maxLineBytes: 1024 * 1024 });
      proxy.stdout.on('data', (chunk: Buffer) => {
        for (const result of reader.push(chunk)) if (result.ok) this.#report(result.frame);
      });
      proxy.stderr.resume();
      proxy.stdin.on('error', () => undefined);
      proxy.on('error', (error) => {
        this.#fail(`the egress proxy could not start: ${error.message}`);
      });
      proxy.on('exit', (code, signal) => {
        this.#fail(`the egress proxy ended (${signal ?? `exit code ${String(code)}`})`);
      });
      proxy.unref();
      (proxy.stdout as unknown as { unref?: () => void }).unref?.();
      (proxy.stderr as unknown as { unref?: () => void }).unref?.();
      return proxy;
    } catch (error) {
      this.#fail(error instanceof Error ? error.message : String(error));
      return undefined;
    }
  }

  #fail(why: string): void {
    this.#broken ??= why;
    for (const [, answer] of this.#waiting) answer({ type: 'error', message: why });
    this.#waiting.clear();
  }

  async #ask(
    nodeId: string,
    line: EgressOpen | { type: 'close'; node: string },
  ): Promise<EgressReport | undefined> {
    const proxy = this.#process;
    if (proxy === undefined || this.#broken !== undefined) return undefined;
    return new Promise<EgressReport | undefined>((resolve) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(nodeId);
        resolve(undefined);
      }, ANSWER_MS);
      this.#waiting.set(nodeId, (answer) => {
        clearTimeout(timer);
        resolve(answer);
      });
      proxy.stdin.write(`${JSON.stringify(line)}\n`);
    });
  }

  #tell(nodeId: string, event: NetEvent): void {
    const recorder = this.#recorders.get(nodeId);
    if (recorder === undefined) this.#record(nodeId, event);
    else recorder(event);
  }

  #report(line: EgressReport): void {
    switch (line.type) {
      case 'opened':
      case 'closed':
      case 'error': {
        if (line.node === undefined) return;
        const answer = this.#waiting.get(line.node);
        this.#waiting.delete(line.node);
        answer?.(line);
        return;
      }
      case 'refused':
        this.#tell(line.node, {
          type: 'net.refused',
          host: line.host,
          port: line.port,
          why: line.why,
          ...(line.command === undefined ? {} : { command: line.command }),
        });
        return;
      case 'traffic':
        this.#tell(line.node, {
          type: 'net.traffic',
          host: line.host,
          port: line.port,
          command: line.command,
          connections: line.connections,
          bytesUp: line.bytes_up,
          bytesDown: line.bytes_down,
          ms: line.ms,
        });
    }
  }
}

/** The events the proxy's reports become. */
export type NetEvent = RunEventBodyOf<'net.refused' | 'net.traffic'>;

/**
 * Does this node's payload call for an egress proxy? Its commands run in the sandbox, it may run
 * some, its `net` grants something, and the operator did not give them the host's network.
 */
function needsEgress(payload: SpawnPayload): boolean {
  const { sandbox, caveats } = payload;
  if (sandbox.mode !== 'bwrap' || !grantsNet(caveats.net)) return false;
  if (caveats.exec !== 'all' && caveats.exec.length === 0) return false;
  return !(sandbox.network === 'host' && caveats.net === 'all');
}

/** The raw TCP forwards of a `net`: each entry naming one host (not `*.suffix`) with a port. */
function forwardsOf(net: SpawnPayload['caveats']['net']): EgressForward[] {
  if (net === 'all') return [];
  const forwards: EgressForward[] = [];
  for (const text of net) {
    const entry = parseNetEntry(text);
    if (typeof entry === 'string' || entry.wildcard || entry.port === undefined) continue;
    forwards.push({ host: entry.host, port: entry.port });
  }
  return forwards;
}
