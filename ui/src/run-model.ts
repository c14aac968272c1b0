import { comparePaths } from './format.js';
import type { NodeView, RunDetail, WireEvent } from './types.js';

/** What a node was doing over a span of time, on its timeline bar. */
export interface Segment {
  kind: 'model' | 'tool' | 'gate' | 'wait';
  start: number;
  /** Undefined while it goes on. */
  end?: number;
  label: string;
}

/** A node's bar: from its spawn to its end, with what it did in between. */
export interface Lane {
  nodeId: string;
  path: string;
  start: number;
  end?: number;
  status: string;
  segments: Segment[];
}

/** A point of the run's running totals. */
export interface Total {
  at: number;
  tokens: number;
}

/**
 * A run as the page shows it: the tree from the run's detail, kept current by its events (status,
 * usage), and what the events say happened over time (one lane per node, the running totals).
 * Events are applied once each, in order, by their `seq`.
 */
export class RunModel {
  detail: RunDetail;
  readonly lanes = new Map<string, Lane>();
  readonly totals: Total[] = [];
  lastSeq = 0;
  ended: boolean;
  readonly #open = new Map<string, Segment>();
  #tokens = 0;

  constructor(detail: RunDetail) {
    this.detail = detail;
    this.ended = detail.status !== 'running';
    for (const node of detail.nodes) this.#lane(node.node_id, node.path, node);
  }

  get start(): number {
    return Date.parse(this.detail.created_at);
  }

  /** The run's end, or now while it runs. */
  get end(): number {
    return this.detail.ended_at === undefined ? Date.now() : Date.parse(this.detail.ended_at);
  }

  /** Nodes in tree order: each parent before its children. */
  get nodes(): NodeView[] {
    return [...this.detail.nodes].sort((a, b) => comparePaths(a.path, b.path));
  }

  /** The lanes in tree order. */
  get orderedLanes(): Lane[] {
    return [...this.lanes.values()].sort((a, b) => comparePaths(a.path, b.path));
  }

  /** A newer detail (after a spawn): nodes and gates as recorded, lanes kept. */
  refresh(detail: RunDetail): void {
    this.detail = detail;
    for (const node of detail.nodes) this.#lane(node.node_id, node.path, node);
    if (detail.status !== 'running') this.ended = true;
  }

  /** Applies an event; true when the page must read the run's detail again (a new node, a gate). */
  apply(event: WireEvent): boolean {
    if (event.seq <= this.lastSeq) return false;
    this.lastSeq = event.seq;
    const at = Date.parse(event.ts);
    const node = event.node_id;
    const lane = node === undefined ? undefined : this.lanes.get(node);
    const key = (id: unknown): string => `${node ?? ''}/${String(id)}`;
    switch (event.event) {
      case 'node.spawned': {
        const known = node !== undefined && this.lanes.has(node);
        if (node !== undefined) this.#lane(node, event.path ?? node).start = at;
        return !known;
      }
      case 'node.status':
        this.#setStatus(node, String(event.status));
        return false;
      case 'node.end':
        if (lane !== undefined) lane.end = at;
        this.#setStatus(node, String(event.status));
        for (const [id, segment] of this.#open)
          if (id.startsWith(`${node ?? ''}/`)) {
            segment.end ??= at;
            this.#open.delete(id);
          }
        return true;
      case 'model.call': {
        const ms = Number(event.ms) || 0;
        lane?.segments.push({ kind: 'model', start: at - ms, end: at, label: String(event.model) });
        this.#tokens += (Number(event.input_tokens) || 0) + (Number(event.output_tokens) || 0);
        this.totals.push({ at, tokens: this.#tokens });
        return false;
      }
      case 'tool.call':
        this.#begin(lane, key(event.id), 'tool', at, String(event.name));
        return false;
      case 'tool.result':
        this.#finish(key(event.id), at);
        return false;
      case 'gate.open':
        this.#begin(
          lane ?? this.lanes.get(String(event.node)),
          `gate/${String(event.gate)}`,
          'gate',
          at,
          typeof event.question === 'string' ? event.question : 'a question',
        );
        return true;
      case 'gate.closed':
        this.#finish(`gate/${String(event.gate)}`, at);
        return true;
      case 'spawn.waiting':
        this.#begin(lane, key('spawn-wait'), 'wait', at, `waiting (${String(event.for)})`);
        return false;
      case 'spawn.waited':
        this.#finish(key('spawn-wait'), at);
        return false;
      default:
        return false;
    }
  }

  #lane(nodeId: string, path: string, view?: NodeView): Lane {
    let lane = this.lanes.get(nodeId);
    if (lane === undefined) {
      const start = Date.parse(view?.started_at ?? '') || this.start;
      lane = { nodeId, path, start, status: view?.status ?? 'spawning', segments: [] };
      const ended = Date.parse(view?.ended_at ?? '');
      if (Number.isFinite(ended)) lane.end = ended;
      this.lanes.set(nodeId, lane);
    } else if (view !== undefined) {
      lane.path = view.path;
      lane.status = view.status;
    }
    return lane;
  }

  #setStatus(nodeId: string | undefined, status: string): void {
    if (nodeId === undefined) return;
    const lane = this.lanes.get(nodeId);
    if (lane !== undefined) lane.status = status;
    const view = this.detail.nodes.find((n) => n.node_id === nodeId);
    if (view !== undefined) view.status = status;
  }

  #begin(
    lane: Lane | undefined,
    id: string,
    kind: Segment['kind'],
    at: number,
    label: string,
  ): void {
    if (lane === undefined) return;
    const segment: Segment = { kind, start: at, label };
    lane.segments.push(segment);
    this.#open.set(id, segment);
  }

  #finish(id: string, at: number): void {
    const segment = this.#open.get(id);
    if (segment === undefined) return;
    segment.end = at;
    this.#open.delete(id);
  }
}
