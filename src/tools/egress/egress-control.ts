import { isAbsolute } from 'node:path';
import { z } from 'zod';
import { normalizeHost, parseNetEntry } from '../../authority/net-scope.js';
import {
  CountSchema,
  PositiveIntSchema,
  excerptOf,
  ScopeSchema,
  findForbiddenKey,
  formatIssues,
  nestsDeeperThan,
  type DecodeResult,
} from '../../protocol/index.js';

/**
 * The egress proxy's wire: the control lines on its stdin and stdout (one JSON object a line), and
 * the one-line session request and reply on a node's `control.sock`. The proxy parses hostile
 * input, so this module is its one JSON edge: everything it reads is decoded here and checked
 * against these schemas.
 */

const NodeSchema = z.string().min(1).max(256);

const HostSchema = z
  .string()
  .max(255)
  .refine((host) => normalizeHost(host) !== undefined, {
    error: 'expected a host name or an IP address',
  });

const PortSchema = z.number().int().min(1).max(65_535);

/** A `net` entry or a named host: refused here when it could not be read, not silently ignored. */
const NetEntrySchema = z.string().superRefine((text, context) => {
  const entry = parseNetEntry(text);
  if (typeof entry === 'string') context.addIssue({ code: 'custom', message: entry });
});

const ForwardSchema = z.strictObject({ host: HostSchema, port: PortSchema });
export type EgressForward = z.infer<typeof ForwardSchema>;

/** Opens a node: its directory, its `control.sock`, what it may reach and its limits. */
const EgressOpenSchema = z.strictObject({
  type: z.literal('open'),
  node: NodeSchema,
  /** Made by the proxy (mode 0700): it must not exist, or be an empty directory. */
  dir: z.string().refine((dir) => isAbsolute(dir) && !dir.includes('\0'), {
    error: 'expected an absolute path',
  }),
  net: ScopeSchema.pipe(z.union([z.literal('all'), z.array(NetEntrySchema)])),
  /** The hosts the operator named exactly: the only ones that may resolve to a special address. */
  named: z.array(NetEntrySchema),
  /** One raw TCP forward socket per entry, `fwd-<i>.sock`, in this order. */
  forwards: z.array(ForwardSchema).max(64),
  limits: z.strictObject({
    /** Connections open at once, over all of the node's sessions. */
    max_connections: PositiveIntSchema,
    /** Bytes both ways over the node's life. */
    max_bytes: PositiveIntSchema,
  }),
});
export type EgressOpen = z.infer<typeof EgressOpenSchema>;

const EgressCloseSchema = z.strictObject({ type: z.literal('close'), node: NodeSchema });

/** A line on the proxy's stdin. */
const EgressCommandSchema = z.discriminatedUnion('type', [EgressOpenSchema, EgressCloseSchema]);
export type EgressCommand = z.infer<typeof EgressCommandSchema>;

const OpenedSchema = z.strictObject({ type: z.literal('opened'), node: NodeSchema });
const ClosedSchema = z.strictObject({ type: z.literal('closed'), node: NodeSchema });
const ErrorSchema = z.strictObject({
  type: z.literal('error'),
  node: NodeSchema.optional(),
  message: z.string(),
});
const RefusedSchema = z.strictObject({
  type: z.literal('refused'),
  node: NodeSchema,
  /** The shell command of the session the connection came from. */
  command: z.string().optional(),
  host: z.string(),
  port: PortSchema,
  why: z.string(),
});
const TrafficSchema = z.strictObject({
  type: z.literal('traffic'),
  node: NodeSchema,
  command: z.string(),
  host: z.string(),
  port: PortSchema,
  connections: CountSchema,
  /** Bytes from the command to the host: tunnel bytes, or request bodies. */
  bytes_up: CountSchema,
  /** Bytes from the host to the command: tunnel bytes, or response bodies. */
  bytes_down: CountSchema,
  /** From the first connection's start to the last one's end, in milliseconds. */
  ms: CountSchema,
});

/** A line on the proxy's stdout. */
const EgressReportSchema = z.discriminatedUnion('type', [
  OpenedSchema,
  ClosedSchema,
  ErrorSchema,
  RefusedSchema,
  TrafficSchema,
]);
export type EgressReport = z.infer<typeof EgressReportSchema>;

/** What a session's client writes on `control.sock`: one line. */
const SessionRequestSchema = z.strictObject({ command: z.string().max(64 * 1024) });

/** The proxy's one-line answer: the session's directory and its forward sockets. */
const SessionReplySchema = z.union([
  z.strictObject({
    dir: z.string(),
    forwards: z.array(ForwardSchema.extend({ socket: z.string() })),
  }),
  z.strictObject({ error: z.string() }),
]);
export type SessionReply = z.infer<typeof SessionReplySchema>;

/** Objects and arrays nest no deeper than this in any line the proxy reads. */
const MAX_DEPTH = 8;

/** A line of the proxy's stdin, decoded and checked. */
export function decodeEgressCommand(text: string, line: number): DecodeResult<EgressCommand> {
  return decodeWith(EgressCommandSchema, text, line);
}

/** A line of the proxy's stdout, decoded and checked: the supervisor's side of the wire. */
export function decodeEgressReport(text: string, line: number): DecodeResult<EgressReport> {
  return decodeWith(EgressReportSchema, text, line);
}

/** A session request read from `control.sock`. */
export function decodeSessionRequest(text: string): DecodeResult<{ command: string }> {
  return decodeWith(SessionRequestSchema, text, 1);
}

/** The proxy's answer to a session request: the client's side of `control.sock`. */
export function decodeSessionReply(text: string): DecodeResult<SessionReply> {
  return decodeWith(SessionReplySchema, text, 1);
}

type Violation = 'malformed_json' | 'over_bound' | 'forbidden_key' | 'invalid_frame';

function decodeWith<T>(schema: z.ZodType<T>, text: string, line: number): DecodeResult<T> {
  const fail = (code: Violation, reason: string): DecodeResult<T> => ({
    ok: false,
    violation: { line, code, reason, excerpt: excerptOf(text) },
  });
  if (nestsDeeperThan(text, MAX_DEPTH))
    return fail('over_bound', `nested deeper than ${MAX_DEPTH} levels`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // The parser's message quotes the text, which may be anything: its length says enough.
    return fail('malformed_json', `not valid JSON (${text.length} chars)`);
  }
  const forbidden = findForbiddenKey(value);
  if (forbidden !== undefined) return fail('forbidden_key', `key \`${forbidden}\` is not allowed`);
  const parsed = schema.safeParse(value, { reportInput: true });
  if (!parsed.success) return fail('invalid_frame', formatIssues(parsed.error.issues));
  return { ok: true, line, frame: parsed.data };
}
