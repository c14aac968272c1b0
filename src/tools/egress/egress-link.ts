import type { NodeLimits } from './node-limits.js';
import type { TrafficMeter } from './traffic.js';

/** What a link reports to: the session it belongs to. */
export interface LinkOwner {
  /** Reports a refusal (a `refused` line). */
  refuse(host: string, port: number, why: string): void;
  /** The link ended: the session stops tracking it. */
  forget(link: EgressLink): void;
}

/** Anything a link tears down when it is cut: sockets, requests, responses. */
interface Destroyable {
  destroy(): unknown;
}

/**
 * One admitted connection: to the address that was checked, holding one of the node's connection
 * slots and counting its bytes against the node's limit and the session's traffic. It ends exactly
 * once, whether it finished, failed, or was cut.
 */
export class EgressLink {
  readonly host: string;
  readonly port: number;
  /** The checked address: the only one the connection may go to. */
  readonly address: string;
  readonly family: 4 | 6;
  readonly #owner: LinkOwner;
  readonly #limits: NodeLimits;
  readonly #meter: TrafficMeter;
  readonly #held = new Set<Destroyable>();
  #ended = false;

  constructor(
    target: { host: string; port: number; address: string; family: 4 | 6 },
    owner: LinkOwner,
    limits: NodeLimits,
    meter: TrafficMeter,
  ) {
    this.host = target.host;
    this.port = target.port;
    this.address = target.address;
    this.family = target.family;
    this.#owner = owner;
    this.#limits = limits;
    this.#meter = meter;
  }

  get isEnded(): boolean {
    return this.#ended;
  }

  /** Streams destroyed when the link is cut. */
  hold(...streams: Destroyable[]): void {
    for (const stream of streams) this.#held.add(stream);
  }

  /** Counts bytes from the command to the host; `false` when the node's limit cut the link. */
  up(bytes: number): boolean {
    if (!this.#take(bytes)) return false;
    this.#meter.up(bytes);
    return true;
  }

  /** Counts bytes from the host to the command; `false` when the node's limit cut the link. */
  down(bytes: number): boolean {
    if (!this.#take(bytes)) return false;
    this.#meter.down(bytes);
    return true;
  }

  /** Tears the connection down (both sides) and ends the link. */
  cut(): void {
    for (const stream of this.#held) stream.destroy();
    this.end();
  }

  /** The connection is over: its slot goes back, its time stops. Later calls do nothing. */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#held.clear();
    this.#limits.release();
    this.#meter.end();
    this.#owner.forget(this);
  }

  #take(bytes: number): boolean {
    if (this.#ended) return false;
    const over = this.#limits.take(bytes);
    if (over === undefined) return true;
    this.#owner.refuse(this.host, this.port, over);
    this.cut();
    return false;
  }
}

/** A connection let through (its link), or why not. */
export type Admission = { ok: true; link: EgressLink } | { ok: false; why: string };

/** Where a handler asks to connect: a session, under its node's policy and limits. */
export interface LinkGate {
  connect(host: string, port: number): Promise<Admission>;
}
