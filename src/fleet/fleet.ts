import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { Queue, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import type { SpawnPayload } from '../protocol/index.js';
import {
  pingIntervalMs,
  type ChildHandle,
  type FleetPort,
  type RemoteStart,
} from '../supervisor/index.js';
import type { AdmittedWorkers } from './admitted-workers.js';
import type { FleetIdentity } from './fleet-identity.js';
import { DEFAULT_QUEUE, queueFor } from './queue-names.js';
import { connectRedis } from './connect-redis.js';
import { RemoteChild, type RemoteLink } from './remote-child.js';
import { StreamHub } from './stream-hub.js';

export interface FleetOptions {
  /** The Redis URL (see `fleetRedisUrl`). */
  url: string;
  /** The supervisor's key pair: it signs every job and everything sent down to a node. */
  identity: FleetIdentity;
  /** The workers whose claims and records are accepted (`[[queue.admit]]`). */
  admitted: AdmittedWorkers;
  /** The base queue name (default `arbor`). */
  queue?: string;
  /** Labels every job needs (a worker must carry them all). */
  labels?: readonly string[];
  /** Attempts in all for a node whose worker is lost (default 3). */
  attempts?: number;
}

/** Jobs kept in Redis after they end, for inspection: the newest this many. */
const KEEP_JOBS = 1_000;

/** The key every fleet stream starts with. */
export const STREAM_PREFIX = 'arbor:fleet';

/**
 * The supervisor's side of a fleet: a queue per label set to add jobs to, one blocking reader for
 * every node's up stream, and BullMQ's queue events to learn of a job whose worker stalled.
 */
export class Fleet implements FleetPort {
  readonly attempts: number;
  readonly #labels: readonly string[];
  readonly #options: FleetOptions;
  readonly #writer: Redis;
  readonly #hub: StreamHub;
  readonly #queues = new Map<string, { queue: Queue; events: QueueEvents }>();
  /** Connections handed to BullMQ, which does not close one it was given. */
  readonly #connections: Redis[] = [];
  readonly #tracked = new Map<string, { lose(reason: string): void }>();
  readonly #link: RemoteLink;

  private constructor(options: FleetOptions, writer: Redis, reader: Redis) {
    this.#options = options;
    this.attempts = options.attempts ?? 3;
    this.#labels = options.labels ?? [];
    this.#writer = writer;
    this.#hub = new StreamHub({
      reader,
      writer,
      wakeKey: `${STREAM_PREFIX}:wake:${randomUUID()}`,
    });
    this.#link = {
      identity: options.identity,
      admitted: options.admitted,
      writer,
      hub: this.#hub,
      enqueue: async (jobId, job, labels) => {
        await this.#queue(labels).queue.add('node', job, {
          jobId,
          attempts: 1,
          removeOnComplete: { count: KEEP_JOBS },
          removeOnFail: { count: KEEP_JOBS },
        });
      },
      withdraw: async (jobId, labels) => {
        const job = await this.#queue(labels).queue.getJob(jobId);
        if (job === undefined) return true;
        if (!(await job.isWaiting()) && !(await job.isDelayed())) return false;
        await job.remove();
        return true;
      },
      track: (jobId, child) => this.#tracked.set(jobId, child),
      untrack: (jobId) => this.#tracked.delete(jobId),
    };
  }

  /** Connects to Redis; a server that cannot be reached is an error now, not at the first node. */
  static async connect(options: FleetOptions): Promise<Fleet> {
    const writer = await connectRedis(options.url, `arbor-supervisor@${hostname()}`);
    const reader = writer.duplicate();
    reader.on('error', () => undefined);
    return new Fleet(options, writer, reader);
  }

  /** What the supervisor's private key looks like as text: no run may show it. */
  get secrets(): string[] {
    return this.#options.identity.secretForms();
  }

  start(payload: SpawnPayload, remote: RemoteStart): ChildHandle {
    const jobId = `${safe(remote.node.runId)}.${safe(remote.node.nodeId)}.${remote.attempt}.${randomUUID().slice(0, 8)}`;
    const streams = `${STREAM_PREFIX}:${jobId}`;
    const labels = this.#labels;
    // Created before the job is added, so a `failed` event for it can never be missed.
    this.#queue(labels);
    return new RemoteChild({
      link: this.#link,
      jobId,
      up: `${streams}:up`,
      down: `${streams}:down`,
      node: remote.node,
      attempt: remote.attempt,
      labels,
      pingMs: pingIntervalMs(remote.timing),
      readyTimeoutMs: remote.timing.readyTimeoutMs,
      killWaitMs: remote.timing.killWaitMs,
      // The worker beats every ping interval: silent for as long as a child may go without a
      // pong, it is gone.
      silenceMs: Math.max(remote.timing.pongTimeoutMs, 3 * pingIntervalMs(remote.timing)),
      record: (...event) => {
        remote.record(...event);
      },
    });
  }

  async close(): Promise<void> {
    await this.#hub.close();
    await Promise.all(
      [...this.#queues.values()].flatMap(({ queue, events }) => [queue.close(), events.close()]),
    );
    for (const connection of this.#connections) connection.disconnect();
    this.#writer.disconnect();
  }

  #duplicate(): Redis {
    const connection = this.#writer.duplicate();
    connection.on('error', () => undefined);
    this.#connections.push(connection);
    return connection;
  }

  #queue(labels: readonly string[]): { queue: Queue; events: QueueEvents } {
    const name = queueFor(this.#options.queue ?? DEFAULT_QUEUE, labels);
    let entry = this.#queues.get(name);
    if (entry === undefined) {
      const connection = this.#duplicate();
      const events = new QueueEvents(name, { connection: this.#duplicate() });
      events.on('error', () => undefined);
      events.on('failed', ({ jobId, failedReason }) => {
        this.#tracked.get(jobId)?.lose(failedReason);
      });
      entry = { queue: new Queue(name, { connection }), events };
      entry.queue.on('error', () => undefined);
      this.#queues.set(name, entry);
    }
    return entry;
  }
}

function safe(id: string): string {
  return id.replace(/[^A-Za-z0-9_-]/g, '_');
}
