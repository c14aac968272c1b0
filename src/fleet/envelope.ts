import { z } from 'zod';
import { redactPayload, RUN_EVENT_FIELDS, type SpawnPayload } from '../protocol/index.js';
import type { FleetIdentity, FleetPublicKey } from './fleet-identity.js';

/** What a worker tells the supervisor on a node's up stream. */
export const UpRecordSchema = z.discriminatedUnion('k', [
  /** A worker took the job: who and where, recorded with the attempt. */
  z.object({ k: z.literal('hello'), worker: z.string().max(200), host: z.string().max(200) }),
  /** One agent frame the child wrote, as its encoded line (decoded again by the supervisor). */
  z.object({ k: z.literal('frame'), line: z.string() }),
  /** A line the worker's reader could not turn into a frame. */
  z.object({
    k: z.literal('violation'),
    code: z.string().max(64),
    reason: z.string().max(2_000),
    excerpt: z.string().max(2_000),
  }),
  /** One line of the child's log. */
  z.object({ k: z.literal('stderr'), line: z.string().max(16_384) }),
  /** The worker is alive and holds the node (sent every ping interval, whatever the child does). */
  z.object({ k: z.literal('beat') }),
  /** What the worker's egress proxy saw of the node's commands: a refusal, or a command's traffic. */
  z.object({
    k: z.literal('net'),
    event: z.discriminatedUnion('type', [
      RUN_EVENT_FIELDS['net.refused'].extend({ type: z.literal('net.refused') }),
      RUN_EVENT_FIELDS['net.traffic'].extend({ type: z.literal('net.traffic') }),
    ]),
  }),
  /**
   * The child ended (or never started). `lost` says the worker is handing the node back (it is
   * being stopped, or it refused the job for a reason that another worker may not share).
   */
  z.object({
    k: z.literal('exit'),
    code: z.number().int().nullable(),
    signal: z.string().max(32).nullable(),
    error: z.string().max(4_000).optional(),
    lost: z.string().max(1_000).optional(),
  }),
]);
export type UpRecord = z.infer<typeof UpRecordSchema>;

/** What the supervisor tells a worker on a node's down stream. */
export const DownRecordSchema = z.discriminatedUnion('k', [
  /**
   * The supervisor bound the node to the first worker that claimed it (said `hello`), named by its
   * key id and the worker id its `hello` gave (two processes sharing a key stay apart): that
   * worker starts the child; any other stops without starting one.
   */
  z.object({ k: z.literal('accept'), key: z.string().max(64), worker: z.string().max(200) }),
  /**
   * The supervisor refused a claim signed by a key it does not admit (never admitted, or revoked):
   * the worker holding that key puts the job back for another and takes no more.
   */
  z.object({ k: z.literal('refuse'), key: z.string().max(64) }),
  /** One control frame for the child, encoded. */
  z.object({ k: z.literal('frame'), line: z.string() }),
  /** Close the child's input. */
  z.object({ k: z.literal('close') }),
  /** Signal the child's process group (a rung of the supervisor's kill ladder). */
  z.object({ k: z.literal('signal'), signal: z.enum(['SIGTERM', 'SIGKILL']) }),
]);
export type DownRecord = z.infer<typeof DownRecordSchema>;

/** The fields of one stream entry: the message, the id of the key that signed it, the signature. */
export interface SealedEntry {
  m: string;
  k: string;
  sig: string;
}

/**
 * The key an entry's or a job's key id stands for, or why that key is refused here ("not
 * admitted", "not the key of the worker the node is bound to").
 */
export type KeyLookup = (keyId: string) => FleetPublicKey | string;

/**
 * Seals a record for a stream: the signature covers the stream's key, the record's sequence
 * number and the record, so an entry cannot be replayed, reordered or moved to another node's
 * stream, and names the key that made it.
 */
export function seal(
  identity: FleetIdentity,
  stream: string,
  seq: number,
  record: UpRecord | DownRecord,
): SealedEntry {
  const m = JSON.stringify({ s: seq, r: record });
  return { m, k: identity.publicKey.id, sig: identity.sign(stream, m) };
}

/** An entry's fields as XADD takes them. */
export function entryFields(entry: SealedEntry): string[] {
  return ['m', entry.m, 'k', entry.k, 'sig', entry.sig];
}

export type Opened<R> =
  { ok: true; record: R; key: FleetPublicKey } | { ok: false; reason: string };

const MessageSchema = z.object({ s: z.number().int().nonnegative(), r: z.unknown() });

/**
 * Opens an entry read from `stream`: the key it names must be one `lookup` accepts, its
 * signature must verify under that key, and its sequence number must be the one expected next.
 * Anything else is refused with the reason, and the caller counts it.
 */
export function open<R>(
  lookup: KeyLookup,
  stream: string,
  fields: readonly string[],
  expectedSeq: number,
  schema: z.ZodType<R>,
): Opened<R> {
  const m = fieldOf(fields, 'm');
  const k = fieldOf(fields, 'k');
  const sig = fieldOf(fields, 'sig');
  if (m === undefined || k === undefined || sig === undefined)
    return { ok: false, reason: 'an entry without `m`, `k` and `sig`' };
  const key = lookup(k);
  if (typeof key === 'string')
    return { ok: false, reason: `an entry signed by key ${k.slice(0, 64)}, ${key}` };
  if (!key.verify(stream, m, sig))
    return { ok: false, reason: 'an entry whose signature does not verify' };
  let value: unknown;
  try {
    value = JSON.parse(m);
  } catch {
    return { ok: false, reason: 'a signed entry that is not JSON' };
  }
  const message = MessageSchema.safeParse(value);
  if (!message.success) return { ok: false, reason: 'a signed entry without a sequence number' };
  if (message.data.s !== expectedSeq)
    return {
      ok: false,
      reason: `an entry out of sequence (expected ${expectedSeq}, got ${message.data.s})`,
    };
  const record = schema.safeParse(message.data.r);
  if (!record.success) return { ok: false, reason: 'a signed entry of an unknown shape' };
  return { ok: true, record: record.data, key };
}

/** The id of the key an entry says it was signed with (unchecked). */
export function signerOf(fields: readonly string[]): string | undefined {
  return fieldOf(fields, 'k');
}

function fieldOf(fields: readonly string[], name: string): string | undefined {
  for (let i = 0; i + 1 < fields.length; i += 2) if (fields[i] === name) return fields[i + 1];
  return undefined;
}

/** The body of a job: everything a worker needs to run one attempt of one node. */
export const JobBodySchema = z.object({
  v: z.literal(1),
  run_id: z.string().min(1),
  node_id: z.string().min(1),
  path: z.string(),
  attempt: z.number().int().positive(),
  /** The node's streams: the worker writes `up` and reads `down`. */
  up: z.string().min(1),
  down: z.string().min(1),
  /** The payload, redacted: credentials travel as references, resolved on the worker. */
  payload: z.record(z.string(), z.unknown()),
  /** Endpoints (by index) the supervisor held a key for: the worker must find one for each. */
  keyed: z.array(z.number().int().nonnegative()).default([]),
  /** The supervisor pings this often; a worker that hears nothing for long stops the child. */
  ping_ms: z.number().int().positive(),
  /** Past this (epoch ms) the job is stale, and a worker refuses it. */
  expires_at: z.number().int().positive(),
});
export type JobBody = z.infer<typeof JobBodySchema>;

/**
 * The body of one attempt's job: the payload redacted (credentials travel as references), and the
 * endpoints the supervisor held a key for, which the worker must find keys for too.
 */
export function jobBody(
  job: {
    node: { runId: string; nodeId: string; path: string };
    attempt: number;
    up: string;
    down: string;
    pingMs: number;
  },
  payload: SpawnPayload,
  expiresAt: number,
): JobBody {
  return {
    v: 1,
    run_id: job.node.runId,
    node_id: job.node.nodeId,
    path: job.node.path,
    attempt: job.attempt,
    up: job.up,
    down: job.down,
    payload: redactPayload(payload),
    keyed: payload.intelligence.endpoints.flatMap((endpoint, index) =>
      endpoint.api_key === undefined ? [] : [index],
    ),
    ping_ms: job.pingMs,
    expires_at: expiresAt,
  };
}

/** A job as it sits in Redis: the body as text, the supervisor's key id and its signature. */
export interface SignedJob {
  body: string;
  key: string;
  sig: string;
}

/** Signs a job with the supervisor's key, bound to the job's id. */
export function signJob(identity: FleetIdentity, jobId: string, body: JobBody): SignedJob {
  const text = JSON.stringify(body);
  return { body: text, key: identity.publicKey.id, sig: identity.sign(`job:${jobId}`, text) };
}

const SignedJobSchema = z.object({ body: z.string(), key: z.string(), sig: z.string() });

/**
 * Opens a job taken from the queue: it must name a supervisor's key `lookup` accepts, its
 * signature must verify under it and its id, and the body parse. A job signed by anyone else (a
 * worker's key, someone with write access to Redis) is refused before anything runs.
 */
export function openJob(lookup: KeyLookup, jobId: string, data: unknown): Opened<JobBody> {
  const signed = SignedJobSchema.safeParse(data);
  if (!signed.success) return { ok: false, reason: 'a job without a signed body' };
  const key = lookup(signed.data.key);
  if (typeof key === 'string')
    return { ok: false, reason: `a job signed by key ${signed.data.key.slice(0, 64)}, ${key}` };
  if (!key.verify(`job:${jobId}`, signed.data.body, signed.data.sig))
    return { ok: false, reason: 'a job whose signature does not verify' };
  let value: unknown;
  try {
    value = JSON.parse(signed.data.body);
  } catch {
    return { ok: false, reason: 'a signed job that is not JSON' };
  }
  const body = JobBodySchema.safeParse(value);
  if (!body.success) return { ok: false, reason: 'a signed job of an unknown shape' };
  return { ok: true, record: body.data, key };
}
