import type { Redis } from 'ioredis';
import {
  decodeLine,
  encodeFrame,
  VIOLATION_CODES,
  type ControlFrame,
  type RunEventArgs,
  type SpawnPayload,
  type ViolationCode,
} from '../protocol/index.js';
import {
  OutputRelay,
  type ChildHandle,
  type ChildListeners,
  type FleetEventType,
  type ProcessExit,
} from '../supervisor/index.js';
import type { AdmittedWorker, AdmittedWorkers } from './admitted-workers.js';
import {
  entryFields,
  open,
  jobBody,
  seal,
  signerOf,
  signJob,
  UpRecordSchema,
  type DownRecord,
  type SignedJob,
  type UpRecord,
} from './envelope.js';
import type { FleetIdentity } from './fleet-identity.js';
import type { StreamHub } from './stream-hub.js';
import { WorkerBinding } from './worker-binding.js';

/** What a remote child needs of the fleet it runs on. */
export interface RemoteLink {
  /** The supervisor's own key: it signs every job and every record sent down. */
  identity: FleetIdentity;
  /** The workers whose claims and records are accepted. */
  admitted: AdmittedWorkers;
  writer: Redis;
  hub: StreamHub;
  /** Adds the job to the queue for `labels`. */
  enqueue(jobId: string, job: SignedJob, labels: readonly string[]): Promise<void>;
  /** Removes a job no worker has taken; false when one has. */
  withdraw(jobId: string, labels: readonly string[]): Promise<boolean>;
  /** Tells `child` when BullMQ fails its job (a worker's lock lapsed: it stalled or died). */
  track(jobId: string, child: { lose(reason: string): void }): void;
  untrack(jobId: string): void;
}

export interface RemoteChildOptions {
  link: RemoteLink;
  jobId: string;
  /** Stream keys: the worker writes `up` and reads `down`. */
  up: string;
  down: string;
  node: { runId: string; nodeId: string; path: string };
  attempt: number;
  labels: readonly string[];
  pingMs: number;
  /** How long a job may wait for a worker before it is stale. */
  readyTimeoutMs: number;
  /** After SIGKILL, how long to wait for the worker's word before calling the worker lost. */
  killWaitMs: number;
  /** A worker that has taken the job and says nothing (not even its beat) this long is lost. */
  silenceMs: number;
  /** Records an event of the node (which worker took it, why it was lost). */
  record?(...event: RunEventArgs<FleetEventType>): void;
  now?: () => number;
}

const STDERR_TAIL = 20;
/** How long the down stream of a node whose worker was lost stays, for the worker to read. */
const LOST_STREAM_TTL_S = 600;

/**
 * A node's child running on a fleet worker, behind the same handle as a local process: the spawn
 * frame becomes a signed BullMQ job (its payload redacted: credentials travel as references),
 * control frames and signals go down a signed stream, and the child's frames, log and exit come
 * back up another. Everything the supervisor does to a local child — liveness, requests, the kill
 * ladder — works unchanged on it.
 *
 * The node is bound to the first admitted worker that claims it (its `hello`, signed with its
 * key): from then on only that worker's key is accepted on the up stream, and a second claim, a
 * record signed by any other key or by a worker revoked since, is refused. This binding lives in
 * this object, for the job's one attempt: a job id is never used twice, and after a restart no
 * supervisor reads an old job's streams, so a job replayed then is never accepted by anyone.
 */
export class RemoteChild implements ChildHandle {
  readonly pid = undefined;
  readonly exited: Promise<ProcessExit>;
  readonly #options: RemoteChildOptions;
  readonly #tail: string[] = [];
  #resolveExit!: (exit: ProcessExit) => void;
  #exit: ProcessExit | undefined;
  readonly #output = new OutputRelay();
  #upSeq = 0;
  #downSeq = 0;
  #lines = 0;
  /** The worker the node is bound to: the first admitted one that claimed it (said `hello`). */
  readonly #binding: WorkerBinding;
  /** Settles once the job is in the queue (or could not be added): a withdrawal waits for it. */
  #queued: Promise<void> | undefined;
  #isInputClosed = false;
  /** Writes to the down stream, in order. */
  #writes: Promise<unknown> = Promise.resolve();
  #killTimer: NodeJS.Timeout | undefined;
  #silenceTimer: NodeJS.Timeout | undefined;
  #heardAt = 0;

  constructor(options: RemoteChildOptions) {
    this.#options = options;
    this.#binding = new WorkerBinding(options.link.admitted);
    this.exited = new Promise((resolve) => {
      this.#resolveExit = resolve;
    });
    options.link.hub.watch(options.up, (fields) => {
      this.#onEntry(fields);
    });
    options.link.track(options.jobId, this);
  }

  attach(listeners: ChildListeners): void {
    this.#output.attach(listeners);
  }

  hasExited(): boolean {
    return this.#exit !== undefined;
  }

  stderrTail(): string[] {
    return [...this.#tail];
  }

  send(frame: ControlFrame): boolean {
    if (this.#exit !== undefined || this.#isInputClosed) return false;
    if (frame.type === 'spawn') {
      this.#enqueue(frame.payload);
      return true;
    }
    this.#write({ k: 'frame', line: encodeFrame(frame).trimEnd() });
    return true;
  }

  closeInput(): void {
    if (this.#isInputClosed || this.#exit !== undefined) return;
    this.#isInputClosed = true;
    this.#write({ k: 'close' });
  }

  signalGroup(signal: 'SIGTERM' | 'SIGKILL'): void {
    if (this.#exit !== undefined) return;
    this.#write({ k: 'signal', signal });
    if (signal !== 'SIGKILL' || this.#killTimer !== undefined) return;
    // A worker that does not answer a SIGKILL with the child's exit is gone with it.
    this.#killTimer = setTimeout(() => {
      void this.#giveUp();
    }, this.#options.killWaitMs);
    this.#killTimer.unref();
  }

  /** BullMQ failed the job: the worker holding it stalled or died. */
  lose(reason: string): void {
    if (this.#exit !== undefined) return;
    this.#options.record?.('fleet.lost', { job: this.#options.jobId, reason });
    this.#settle({
      code: null,
      signal: null,
      error: new Error(`worker lost: ${reason}`),
      lost: reason,
    });
  }

  async #giveUp(): Promise<void> {
    if (this.#exit !== undefined) return;
    const { link, jobId, labels } = this.#options;
    const queued = this.#queued;
    if (
      this.#binding.worker === undefined &&
      queued !== undefined &&
      (await queued.then(() => link.withdraw(jobId, labels)).catch(() => false))
    ) {
      this.#settle({
        code: null,
        signal: null,
        error: new Error(
          'no fleet worker took the job (is one running for this queue and its labels?)',
        ),
      });
      return;
    }
    this.lose('no exit from the worker after SIGKILL');
  }

  #enqueue(payload: SpawnPayload): void {
    const { link, jobId, attempt, readyTimeoutMs, labels } = this.#options;
    const body = jobBody(this.#options, payload, this.#now() + readyTimeoutMs);
    const job = signJob(link.identity, jobId, body);
    this.#options.record?.('fleet.queued', { job: jobId, attempt, labels: [...labels] });
    this.#queued = link.enqueue(jobId, job, labels).catch((error: unknown) => {
      this.#settle({
        code: null,
        signal: null,
        error: new Error(
          `cannot queue the job: ${error instanceof Error ? error.message : String(error)}`,
        ),
      });
    });
  }

  #write(record: DownRecord): void {
    const { link, down } = this.#options;
    const entry = seal(link.identity, down, this.#downSeq++, record);
    this.#writes = this.#writes.then(() =>
      link.writer
        .xadd(down, 'MAXLEN', '~', '10000', '*', ...entryFields(entry))
        .catch(() => undefined),
    );
  }

  #onEntry(fields: string[]): void {
    if (this.#exit !== undefined || this.#isRevoked()) return;
    const binding = this.#binding;
    const opened = open(binding.lookup, this.#options.up, fields, this.#upSeq, UpRecordSchema);
    if (!opened.ok) {
      this.#refuse(opened.reason);
      // A worker whose key is not admitted (revoked, or never) is told, so it hands the job back.
      const keyId = binding.refusal(signerOf(fields));
      if (keyId !== undefined) this.#write({ k: 'refuse', key: keyId });
      return;
    }
    if (binding.worker === undefined) {
      const claim = binding.claim(opened.key, opened.record);
      if (typeof claim === 'string') {
        this.#refuse(claim);
        return;
      }
      this.#upSeq += 1;
      this.#heardAt = this.#now();
      this.#onClaim(claim.worker, claim.hello);
      return;
    }
    this.#upSeq += 1;
    this.#heardAt = this.#now();
    this.#onRecord(opened.record);
  }

  /** The node is bound to the worker whose claim came first: recorded, and the worker told. */
  #onClaim(worker: AdmittedWorker, hello: Extract<UpRecord, { k: 'hello' }>): void {
    this.#watchSilence();
    this.#options.record?.('fleet.assigned', {
      job: this.#options.jobId,
      worker: hello.worker,
      host: hello.host,
      attempt: this.#options.attempt,
      name: worker.name,
      keyId: worker.key.id,
    });
    this.#write({
      k: 'accept',
      key: worker.key.id,
      worker: hello.worker,
    });
  }

  /** A worker revoked while it holds the node: its records are refused and the node is lost. */
  #isRevoked(): boolean {
    const why = this.#binding.revoked();
    if (why !== undefined) this.lose(why);
    return why !== undefined;
  }

  #refuse(reason: string): void {
    this.#output.emit({
      kind: 'violation',
      violation: {
        line: ++this.#lines,
        code: 'bad_signature',
        reason: `refused ${reason}`,
        excerpt: '',
      },
    });
  }

  #onRecord(record: UpRecord): void {
    switch (record.k) {
      case 'beat':
        return;
      case 'net': {
        // The worker's egress proxy, on this node's commands: recorded as the supervisor's own.
        const { event } = record;
        if (event.type === 'net.refused') {
          const { type, ...fields } = event;
          this.#options.record?.(type, fields);
        } else {
          const { type, ...fields } = event;
          this.#options.record?.(type, fields);
        }
        return;
      }
      case 'hello':
        // The bound worker saying it again: it holds the node already.
        return;
      case 'frame': {
        const decoded = decodeLine(record.line, ++this.#lines, 'up');
        this.#output.emit(
          decoded.ok
            ? { kind: 'frame', frame: decoded.frame }
            : { kind: 'violation', violation: decoded.violation },
        );
        return;
      }
      case 'violation':
        this.#output.emit({
          kind: 'violation',
          violation: {
            line: ++this.#lines,
            code: violationCode(record.code),
            reason: record.reason,
            excerpt: record.excerpt,
          },
        });
        return;
      case 'stderr':
        this.#tail.push(record.line);
        if (this.#tail.length > STDERR_TAIL) this.#tail.shift();
        this.#output.emit({ kind: 'stderr', line: record.line });
        return;
      case 'exit':
        if (record.lost !== undefined)
          this.#options.record?.('fleet.lost', { job: this.#options.jobId, reason: record.lost });
        this.#settle({
          code: record.code,
          signal: record.signal as NodeJS.Signals | null,
          ...(record.error === undefined ? {} : { error: new Error(record.error) }),
          ...(record.lost === undefined ? {} : { lost: record.lost }),
        });
        return;
    }
  }

  /** Calls the worker lost when it falls silent: it died, or its machine or network did. */
  #watchSilence(): void {
    const { silenceMs, pingMs } = this.#options;
    this.#silenceTimer = setInterval(
      () => {
        // A worker revoked while its node runs is lost even if it says nothing more.
        if (this.#isRevoked()) return;
        const silent = this.#now() - this.#heardAt;
        if (silent > silenceMs) this.lose(`no word from the worker for ${silent} ms`);
      },
      Math.max(50, Math.min(pingMs, silenceMs)),
    );
    this.#silenceTimer.unref();
  }

  #now(): number {
    return (this.#options.now ?? Date.now)();
  }

  #settle(exit: ProcessExit): void {
    if (this.#exit !== undefined) return;
    this.#exit = exit;
    clearTimeout(this.#killTimer);
    clearInterval(this.#silenceTimer);
    const { link, up, down, jobId } = this.#options;
    link.hub.unwatch(up);
    link.untrack(jobId);
    // A worker called lost may yet be alive (a partition, a stall): it is told to kill the child,
    // and its down stream stays a while for it to read that.
    if (exit.lost !== undefined) this.#write({ k: 'signal', signal: 'SIGKILL' });
    // The streams go with the node; writes already queued land first.
    void this.#writes.then(async () => {
      const ending =
        exit.lost === undefined
          ? link.writer.del(up, down)
          : link.writer.multi().del(up).expire(down, LOST_STREAM_TTL_S).exec();
      await ending.catch(() => undefined);
    });
    this.#resolveExit(exit);
  }
}

function violationCode(code: string): ViolationCode {
  return (VIOLATION_CODES as readonly string[]).includes(code)
    ? (code as ViolationCode)
    : 'invalid_frame';
}
