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
import { DownStream } from './down-stream.js';
import { entryFields, seal, type DownRecord, type JobBody, type UpRecord } from './envelope.js';
import type { FleetIdentity, FleetPublicKey } from './fleet-identity.js';
import { restorePayload, type WorkerSecrets } from './restore-payload.js';
import type { StreamHub } from './stream-hub.js';

/** What a worker runs every job with. */
export interface WorkerPlace {
  /** This worker's key pair: it signs everything the worker sends up. */
  identity: FleetIdentity;
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

/** A job a worker took: its body, and the key of the supervisor that signed it. */
export interface TakenJob {
  body: JobBody;
  supervisor: FleetPublicKey;
}

/** How a job ended on this worker. */
export interface JobReport {
  exit: ProcessExit;
  refused?: string;
  /** The supervisor does not admit this worker's key: the job goes back, and the worker stops. */
  isNotAdmitted?: boolean;
}

/**
 * Runs one node's child on this worker: claims the node (`hello`, signed with this worker's key)
 * and starts nothing until the supervisor accepts the claim; restores the payload from the job
 * (credentials and servers from here), starts the child in the workspace, relays its frames up and
 * the supervisor's frames and signals down, and ends with the child. A supervisor that falls
 * silent is taken to be gone, and the child is stopped by the local kill ladder; `handBack` stops
 * it and tells the supervisor to queue the node again elsewhere.
 */
export async function runJob(
  place: WorkerPlace,
  { body, supervisor }: TakenJob,
  handBack: AbortSignal,
): Promise<JobReport> {
  let upSeq = 0;
  let writes: Promise<unknown> = Promise.resolve();
  const write = (record: UpRecord): Promise<unknown> => {
    const entry = seal(place.identity, body.up, upSeq++, record);
    writes = writes.then(() =>
      place.writer
        .xadd(body.up, 'MAXLEN', '~', '10000', '*', ...entryFields(entry))
        .catch((error: unknown) => {
          place.log(`cannot write to ${body.up}: ${String(error)}`);
        }),
    );
    return writes;
  };
  /** The job's streams go in a while, should the supervisor never delete them. */
  const expireStreams = (): Promise<unknown> =>
    place.writer
      .multi()
      .expire(body.up, STREAM_TTL_S)
      .expire(body.down, STREAM_TTL_S)
      .exec()
      .catch(() => undefined);
  const finish = async (exit: ProcessExit, lost?: string): Promise<JobReport> => {
    void write({
      k: 'exit',
      code: exit.code,
      signal: exit.signal,
      ...(exit.error === undefined ? {} : { error: exit.error.message }),
      ...(lost === undefined ? {} : { lost }),
    });
    await writes;
    await expireStreams();
    return { exit, ...(exit.error === undefined ? {} : { refused: exit.error.message }) };
  };

  void write({ k: 'hello', worker: place.workerId, host: place.host });
  if (place.now() > body.expires_at)
    return finish({
      code: null,
      signal: null,
      error: new Error('the job was stale when a worker took it'),
    });
  const orphanMs = Math.max(MIN_ORPHAN_MS, ORPHAN_PINGS * body.ping_ms);
  const down = new DownStream({
    hub: place.hub,
    stream: body.down,
    supervisor,
    keyId: place.identity.publicKey.id,
    workerId: place.workerId,
    log: (message) => {
      place.log(message);
    },
    now: () => place.now(),
  });
  // Nothing starts before the supervisor binds the node to this worker: a job replayed, or taken
  // by two workers, runs on one at most.
  const refusal = await down.accepted(orphanMs, handBack);
  if (refusal !== undefined) {
    down.close();
    await writes;
    // With no supervisor there (a job replayed after its node ended), the `hello` made its stream
    // again: it goes in a while. A stream some other worker holds is left as it is.
    if (down.isSilent) await expireStreams();
    return {
      exit: { code: null, signal: null, error: new Error(`claim not accepted: ${refusal}`) },
      refused: `claim not accepted: ${refusal}`,
      ...(down.isRefused ? { isNotAdmitted: true } : {}),
    };
  }
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
    down.close();
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

  let lines = 0;
  down.deliver((record: DownRecord): void => {
    if (record.k === 'close') child.closeInput();
    else if (record.k === 'signal') child.signalGroup(record.signal);
    else if (record.k === 'frame') {
      const decoded = decodeLine(record.line, ++lines, 'down');
      if (decoded.ok) child.send(decoded.frame);
      else place.log(`dropped a bad control frame: ${decoded.violation.reason}`);
    }
  });

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
  const watchdog = setInterval(
    () => {
      if (place.now() - down.heardAt > orphanMs)
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
    down.close();
    return await finish(exit, lost === undefined || !handBack.aborted ? undefined : lost);
  } finally {
    clearInterval(watchdog);
    clearInterval(beat);
    handBack.removeEventListener('abort', onHandBack);
  }
}
