import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { WaitingError, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import {
  ChildPool,
  DEFAULT_EGRESS_LIMITS,
  EgressHost,
  childEnv,
  type ChildCommand,
} from '../supervisor/index.js';
import { openJob, type KeyLookup } from './envelope.js';
import type { FleetIdentity, FleetPublicKey } from './fleet-identity.js';
import { STREAM_PREFIX } from './fleet.js';
import { DEFAULT_QUEUE, queuesOf } from './queue-names.js';
import { connectRedis } from './connect-redis.js';
import type { WorkerSecrets } from './restore-payload.js';
import { StreamHub } from './stream-hub.js';
import { runJob, type JobReport, type WorkerPlace } from './worker-job.js';

export interface FleetWorkerOptions {
  url: string;
  /** This worker's key pair: it signs what the worker sends up, and names it to supervisors. */
  identity: FleetIdentity;
  /** The supervisors this worker serves: a job or a down record signed by anyone else is refused. */
  supervisors: readonly FleetPublicKey[];
  /** The base queue name (default `arbor`). */
  queue?: string;
  /** What this worker has: it takes jobs that need any subset of these. */
  labels?: readonly string[];
  /** Children run at once (default 4). */
  concurrency?: number;
  /** Children kept started and loaded ahead of time, for a fast start (default 0). */
  pool?: number;
  workspace: string;
  command: ChildCommand;
  secrets: WorkerSecrets;
  ladder: WorkerPlace['ladder'];
  /** What each node's commands may hold and move through this worker's egress proxy. */
  egress?: { maxConnections: number; maxBytes: number };
  /** BullMQ's lock on an active job: a worker silent for this long has stalled (default 30 s). */
  lockDurationMs?: number;
  log(message: string): void;
}

/** How many taken jobs a worker remembers, to refuse one added back. */
const SEEN_JOBS = 10_000;

/** What a worker has done, for its log and its tests. */
export interface WorkerCounts {
  taken: number;
  finished: number;
  /** Jobs refused unrun: not signed by a supervisor this worker serves, or taken here before. */
  refused: number;
}

/**
 * `arbor worker`: takes jobs from the fleet's queues and runs each node's child here, under the
 * same child code, sandbox and kill ladder as a local child. It holds no authority: every payload
 * is minted and signed by a supervisor, and every request its children make is served there.
 */
export class FleetWorker {
  readonly id: string;
  readonly counts: WorkerCounts = { taken: 0, finished: 0, refused: 0 };
  readonly #options: FleetWorkerOptions;
  readonly #writer: Redis;
  readonly #hub: StreamHub;
  readonly #workers: Worker[] = [];
  /** Connections handed to BullMQ, which does not close one it was given. */
  readonly #connections: Redis[] = [];
  readonly #handBack = new AbortController();
  readonly #place: WorkerPlace;
  readonly #pool: ChildPool | undefined;
  readonly #egress: EgressHost;
  #active = 0;
  /** The ids of the jobs this worker has taken, the latest `SEEN_JOBS`. */
  readonly #seen = new Set<string>();
  #waiting: (() => void)[] = [];
  readonly #supervisors: KeyLookup;
  /** Why this worker takes no more jobs, once a supervisor refused its key. */
  #notAdmitted: string | undefined;
  #onNotAdmitted!: (why: string) => void;
  /**
   * Settles when a supervisor this worker serves refuses its key (it was revoked, or never
   * admitted): the worker then takes no more jobs, and hands back any it is given. Its owner
   * drains it.
   */
  readonly notAdmitted = new Promise<string>((resolve) => {
    this.#onNotAdmitted = resolve;
  });

  private constructor(options: FleetWorkerOptions, writer: Redis) {
    this.#options = options;
    const supervisors = new Map(options.supervisors.map((key) => [key.id, key]));
    this.#supervisors = (keyId) =>
      supervisors.get(keyId) ?? 'which is not the key of a supervisor this worker serves';
    this.id = `${hostname()}/${process.pid}/${randomUUID().slice(0, 6)}`;
    this.#writer = writer;
    const reader = writer.duplicate();
    reader.on('error', () => undefined);
    this.#hub = new StreamHub({
      reader,
      writer,
      wakeKey: `${STREAM_PREFIX}:wake:${this.id}`,
      onError: (error) => {
        options.log(`reading the streams: ${error.message}`);
      },
    });
    this.#pool =
      (options.pool ?? 0) > 0
        ? new ChildPool({
            command: options.command,
            // What any child may see of this machine's environment: no credential.
            env: childEnv(options.secrets.env),
            size: options.pool ?? 0,
            cwd: options.workspace,
          })
        : undefined;
    this.#egress = new EgressHost({
      limits: options.egress ?? DEFAULT_EGRESS_LIMITS,
      // Every node's events go up its own stream (see `runJob`); none is left to record here.
      record: () => undefined,
    });
    this.#place = {
      egress: this.#egress,
      identity: options.identity,
      writer,
      hub: this.#hub,
      workerId: this.id,
      host: hostname(),
      workspace: options.workspace,
      command: options.command,
      secrets: options.secrets,
      ...(this.#pool === undefined ? {} : { pool: this.#pool }),
      ladder: options.ladder,
      now: () => Date.now(),
      log: (message) => {
        options.log(message);
      },
    };
  }

  /** Connects and starts taking jobs. */
  static async start(options: FleetWorkerOptions): Promise<FleetWorker> {
    const writer = await connectRedis(options.url, `arbor-worker@${hostname()}`);
    const worker = new FleetWorker(options, writer);
    worker.#listen();
    return worker;
  }

  /** The queues this worker takes jobs from. */
  get queues(): string[] {
    return queuesOf(this.#options.queue ?? DEFAULT_QUEUE, this.#options.labels ?? []);
  }

  /** Stops taking jobs and waits for the running ones to finish. */
  async drain(): Promise<void> {
    await Promise.all(this.#workers.map((worker) => worker.close()));
    await this.#close();
  }

  /** Stops taking jobs, stops the running children and hands their nodes back to be queued again. */
  async handBack(): Promise<void> {
    this.#handBack.abort();
    await this.drain();
  }

  #listen(): void {
    const concurrency = this.#options.concurrency ?? 4;
    for (const name of this.queues) {
      const connection = this.#writer.duplicate();
      connection.on('error', () => undefined);
      this.#connections.push(connection);
      const worker = new Worker(name, (job, token) => this.#process(job, token), {
        connection,
        concurrency,
        // A job whose worker died is not run again by BullMQ: it fails, and the supervisor queues
        // the node again from its recorded transcript (a fresh job, a fresh pair of streams).
        maxStalledCount: 0,
        ...(this.#options.lockDurationMs === undefined
          ? {}
          : {
              lockDuration: this.#options.lockDurationMs,
              stalledInterval: this.#options.lockDurationMs,
            }),
      });
      worker.on('error', (error) => {
        this.#options.log(`queue ${name}: ${error.message}`);
      });
      this.#workers.push(worker);
    }
  }

  async #process(job: Job, token?: string): Promise<{ refused?: string; code?: number | null }> {
    // Not admitted any more: a job taken meanwhile goes back untouched, for another worker.
    if (this.#notAdmitted !== undefined) return this.#putBack(job, token);
    const opened = openJob(this.#supervisors, job.id ?? '', job.data);
    if (!opened.ok) {
      this.counts.refused += 1;
      this.#options.log(`refused job ${job.id ?? '?'}: ${opened.reason}`);
      return { refused: opened.reason };
    }
    // A job runs once here: the same id again (a completed job added back) is refused.
    const id = job.id ?? '';
    if (this.#seen.has(id)) {
      this.counts.refused += 1;
      const reason = `job ${id} was taken here before`;
      this.#options.log(`refused ${reason}`);
      return { refused: reason };
    }
    this.#seen.add(id);
    if (this.#seen.size > SEEN_JOBS) this.#seen.delete(this.#seen.values().next().value ?? '');
    await this.#slot();
    this.counts.taken += 1;
    const { path, attempt, run_id: runId } = opened.record;
    this.#options.log(`took ${job.id ?? '?'} (run ${runId}, node ${path}, attempt ${attempt})`);
    let report: JobReport;
    try {
      report = await runJob(
        this.#place,
        { body: opened.record, supervisor: opened.key },
        this.#handBack.signal,
      );
    } finally {
      this.#release();
    }
    this.counts.finished += 1;
    if (report.isNotAdmitted === true) {
      const why = `a supervisor (key ${opened.key.id}) does not admit this worker's key (${this.#options.identity.publicKey.id})`;
      this.#options.log(`${why}: job ${id} goes back to the queue, and this worker takes no more`);
      this.#notAdmitted = why;
      for (const worker of this.#workers) void worker.pause(true).catch(() => undefined);
      this.#onNotAdmitted(why);
      return this.#putBack(job, token);
    }
    const { code, signal, error } = report.exit;
    this.#options.log(
      `ended ${job.id ?? '?'}: ${error === undefined ? `code ${String(code)}, signal ${String(signal)}` : error.message}`,
    );
    return {
      code: report.exit.code,
      ...(report.refused === undefined ? {} : { refused: report.refused }),
    };
  }

  /** Puts a job back in its queue's wait list, unrun, for another worker to take. */
  async #putBack(job: Job, token: string | undefined): Promise<never> {
    await job.moveToWait(token);
    throw new WaitingError();
  }

  /** One slot of the worker's concurrency, shared by all of its queues. */
  async #slot(): Promise<void> {
    const limit = this.#options.concurrency ?? 4;
    if (this.#active < limit) {
      this.#active += 1;
      return;
    }
    await new Promise<void>((resolve) => this.#waiting.push(resolve));
  }

  #release(): void {
    const next = this.#waiting.shift();
    if (next === undefined) this.#active -= 1;
    else next();
  }

  async #close(): Promise<void> {
    this.#pool?.close();
    await this.#egress.shutdown();
    await this.#hub.close();
    for (const connection of this.#connections) connection.disconnect();
    this.#writer.disconnect();
  }
}
