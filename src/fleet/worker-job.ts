import type { Redis } from 'ioredis';
import { decodeLine, encodeFrame, PROTOCOL_VERSION } from '../protocol/index.js';
import {
  ChildProcess,
  childEnv,
  type ChildPool,
  type EgressHost,
  killLadder,
  type ChildCommand,
  type ProcessExit,
} from '../supervisor/index.js';
import {
  DownRecordSchema,
  open,
  seal,
  type DownRecord,
  type JobBody,
  type UpRecord,
} from './envelope.js';
import type { FleetKey } from './fleet-key.js';
import { restorePayload, type WorkerSecrets } from './restore-payload.js';
import type { StreamHub } from './stream-hub.js';

/** What a worker runs every job with. */
export interface WorkerPlace {
  key: FleetKey;
  writer: Redis;
  hub: StreamHub;
  /** Who this worker is, told to the supervisor with each job it takes. */
  workerId: string;
  host: string;
  /** Where its children work: the nodes' working directory on this machine. */
  workspace: string;
  command: ChildCommand;
  secrets: WorkerSecrets;
  /** Children started ahead of time in the workspace, loaded and waiting for a payload. */
  pool?: ChildPool;
  /** This worker's egress proxy, for the commands of the nodes it hosts. */
  egress: EgressHost;
  /** The local kill ladder's rungs, used when the supervisor is gone or the worker stops. */
  ladder: { cancelGraceMs: number; termGraceMs: number; killWaitMs: number };
  now: () => number;
  /** Something this worker refused or noticed, for its log. */
  log(message: string): void;
}

/** How long the streams of an ended node stay, should the supervisor never delete them. */
const STREAM_TTL_S = 3_600;
/** Heard nothing from the supervisor for this many of its ping intervals: it is gone. */
const ORPHAN_PINGS = 10;
const MIN_ORPHAN_MS = 15_000;

/** How a job ended on this worker. */
export interface JobReport {
  exit: ProcessExit;
  refused?: string;
}

/**
 * Runs one node's child on this worker: restores the payload from the job (credentials and
 * servers from here), starts the child in the workspace, relays its frames up and the
 * supervisor's frames and signals down, and ends with the child. A supervisor that falls silent
 * is taken to be gone, and the child is stopped by the local kill ladder; `handBack` stops it and
 * tells the supervisor to queue the node again elsewhere.
 */
export async function runJob(
  place: WorkerPlace,
  body: JobBody,
  handBack: AbortSignal,
): Promise<JobReport> {
  let upSeq = 0;
  let writes: Promise<unknown> = Promise.resolve();
  const write = (record: UpRecord): Promise<unknown> => {
    const entry = seal(place.key, body.up, upSeq++, record);
    writes = writes.then(() =>
      place.writer
        .xadd(body.up, 'MAXLEN', '~', '10000', '*', 'm', entry.m, 'h', entry.h)
        .catch((error: unknown) => {
          place.log(`cannot write to ${body.up}: ${String(error)}`);
        }),
    );
    return writes;
  };
  const finish = async (exit: ProcessExit, lost?: string): Promise<JobReport> => {
    void write({
      k: 'exit',
      code: exit.code,
      signal: exit.signal,
      ...(exit.error === undefined ? {} : { error: exit.error.message }),
      ...(lost === undefined ? {} : { lost }),
    });
    await writes;
    await place.writer
      .multi()
      .expire(body.up, STREAM_TTL_S)
      .expire(body.down, STREAM_TTL_S)
      .exec()
      .catch(() => undefined);
    return { exit, ...(exit.error === undefined ? {} : { refused: exit.error.message }) };
  };

  void write({ k: 'hello', worker: place.workerId, host: place.host });
  if (place.now() > body.expires_at)
    return finish({
      code: null,
      signal: null,
      error: new Error('the job was stale when a worker took it'),
    });
  let payload;
  try {
    payload = await restorePayload(body.payload, place.secrets, body.keyed);
    // The node's commands reach the network through this worker's proxy, held to its `net`;
    // what the proxy sees goes up with the node's records.
    payload = await place.egress.open(body.node_id, payload, (event) => {
      void write({ k: 'net', event });
    });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return finish({
      code: null,
      signal: null,
      error: new Error(`worker ${place.workerId} cannot run node ${body.path}: ${reason}`),
    });
  }

  // A pooled child started without a payload: one that needs an extra CA starts fresh, with it.
  const child =
    (payload.tls_ca === undefined ? place.pool?.take() : undefined) ??
    new ChildProcess({
      command: place.command.command,
      args: place.command.args,
      env: childEnv(place.secrets.env, payload),
      cwd: place.workspace,
    });
  child.attach({
    onFrame: (frame) => void write({ k: 'frame', line: encodeFrame(frame).trimEnd() }),
    onViolation: (violation) =>
      void write({
        k: 'violation',
        code: violation.code,
        reason: violation.reason,
        excerpt: violation.excerpt,
      }),
    onStderr: (line) => void write({ k: 'stderr', line: line.slice(0, 16_384) }),
  });
  child.send({ type: 'spawn', protocol: PROTOCOL_VERSION, payload });

  let downSeq = 0;
  let lines = 0;
  let heardAt = place.now();
  place.hub.watch(body.down, (fields) => {
    const opened = open(place.key, body.down, fields, downSeq, DownRecordSchema);
    if (!opened.ok) {
      place.log(`refused ${opened.reason} on ${body.down}`);
      return;
    }
    downSeq += 1;
    heardAt = place.now();
    onDown(opened.record);
  });
  const onDown = (record: DownRecord): void => {
    if (record.k === 'close') child.closeInput();
    else if (record.k === 'signal') child.signalGroup(record.signal);
    else {
      const decoded = decodeLine(record.line, ++lines, 'down');
      if (decoded.ok) child.send(decoded.frame);
      else place.log(`dropped a bad control frame: ${decoded.violation.reason}`);
    }
  };

  let lost: string | undefined;
  const stop = (why: string): void => {
    if (lost !== undefined || child.hasExited()) return;
    lost = why;
    void killLadder(
      {
        sendCancel: (reason) => child.send({ type: 'cancel', reason }),
        signalGroup: (signal) => {
          child.signalGroup(signal);
        },
        exited: child.exited,
        hasExited: () => child.hasExited(),
      },
      { reason: why, ...place.ladder },
    );
  };
  const orphanMs = Math.max(MIN_ORPHAN_MS, ORPHAN_PINGS * body.ping_ms);
  const watchdog = setInterval(
    () => {
      if (place.now() - heardAt > orphanMs)
        stop(`heard nothing from the supervisor for ${orphanMs} ms`);
    },
    Math.min(orphanMs, 1_000),
  );
  // The supervisor hears from this worker every ping interval, so it knows the worker is alive
  // even while the child is busy and says nothing.
  const beat = setInterval(() => void write({ k: 'beat' }), body.ping_ms);
  const onHandBack = (): void => {
    stop('the worker is stopping');
  };
  handBack.addEventListener('abort', onHandBack, { once: true });
  try {
    const exit = await child.exited;
    await place.egress.close(body.node_id);
    // The exit record is the last: the supervisor deletes the streams once it reads it, and a beat
    // written after would make `up` again, with no expiry.
    clearInterval(beat);
    place.hub.unwatch(body.down);
    return await finish(exit, lost === undefined || !handBack.aborted ? undefined : lost);
  } finally {
    clearInterval(watchdog);
    clearInterval(beat);
    handBack.removeEventListener('abort', onHandBack);
  }
}
