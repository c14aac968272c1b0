import { chmod, mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { EgressForward, EgressReport, SessionReply } from './egress-control.js';
import { EgressLink, type Admission, type LinkGate, type LinkOwner } from './egress-link.js';
import { checkEgress, type EgressRules } from './egress-policy.js';
import { createHttpProxy } from './http-proxy.js';
import type { NodeLimits } from './node-limits.js';
import { createTcpForward } from './tcp-forward.js';
import { TrafficLog } from './traffic.js';
import { UnixListener } from './unix-listener.js';

/** What a session shares with the other sessions of its node: the node (`egress-node.ts`). */
export interface SessionNode {
  readonly node: string;
  readonly rules: EgressRules;
  readonly limits: NodeLimits;
  readonly forwards: readonly EgressForward[];
  report(line: EgressReport): void;
}

/**
 * One command's egress: a directory of its own (`s-<n>/`, mode 0700) with `proxy.sock`, the HTTP
 * proxy, and one `fwd-<i>.sock` per forward of the node. Every connection through it is checked
 * against the node's policy and limits, and counted per host:port; when the session closes, its
 * sockets and connections close, its directory goes, and its traffic is reported.
 */
export class EgressSession implements LinkGate, LinkOwner {
  readonly dir: string;
  readonly command: string;
  readonly #node: SessionNode;
  readonly #traffic = new TrafficLog();
  readonly #links = new Set<EgressLink>();
  readonly #listeners: UnixListener[] = [];
  #started: Promise<SessionReply> | undefined;
  #closed: Promise<void> | undefined;

  constructor(node: SessionNode, dir: string, command: string) {
    this.#node = node;
    this.dir = dir;
    this.command = command;
  }

  /** Makes the directory and its sockets; the answer the session's client gets. */
  start(): Promise<SessionReply> {
    this.#started ??= this.#start();
    return this.#started;
  }

  async #start(): Promise<SessionReply> {
    await mkdir(this.dir, { mode: 0o700 });
    await chmod(this.dir, 0o700);
    const proxy = join(this.dir, 'proxy.sock');
    this.#listeners.push(await UnixListener.listen(createHttpProxy(this), proxy));
    const forwards: { host: string; port: number; socket: string }[] = [];
    for (const [i, forward] of this.#node.forwards.entries()) {
      const socket = join(this.dir, `fwd-${i}.sock`);
      this.#listeners.push(await UnixListener.listen(createTcpForward(this, forward), socket));
      forwards.push({ ...forward, socket });
    }
    return { dir: this.dir, forwards };
  }

  async connect(host: string, port: number): Promise<Admission> {
    if (this.#isClosed()) return { ok: false, why: 'the session is closed' };
    const over = this.#node.limits.admit();
    if (over !== undefined) {
      this.refuse(host, port, over);
      return { ok: false, why: over };
    }
    const decision = await checkEgress(host, port, this.#node.rules);
    if (!decision.ok || this.#isClosed()) {
      this.#node.limits.release();
      if (!decision.ok) this.refuse(host, port, decision.why);
      return { ok: false, why: decision.ok ? 'the session is closed' : decision.why };
    }
    const target = { host, port, address: decision.address, family: decision.family };
    const meter = this.#traffic.start(host, port);
    const link = new EgressLink(target, this, this.#node.limits, meter);
    this.#links.add(link);
    return { ok: true, link };
  }

  #isClosed(): boolean {
    return this.#closed !== undefined;
  }

  refuse(host: string, port: number, why: string): void {
    const { node } = this.#node;
    this.#node.report({ type: 'refused', node, command: this.command, host, port, why });
  }

  forget(link: EgressLink): void {
    this.#links.delete(link);
  }

  /** Closes the sockets and connections, removes the directory, reports the traffic. Once. */
  close(): Promise<void> {
    this.#closed ??= this.#close();
    return this.#closed;
  }

  async #close(): Promise<void> {
    // A start under way finishes first, so nothing it makes outlives the session.
    await this.#started?.catch(() => undefined);
    for (const link of [...this.#links]) link.cut();
    await Promise.all(this.#listeners.map((listener) => listener.close()));
    await rm(this.dir, { recursive: true, force: true });
    const { node } = this.#node;
    for (const total of this.#traffic.totals())
      this.#node.report({ type: 'traffic', node, command: this.command, ...total });
  }
}
