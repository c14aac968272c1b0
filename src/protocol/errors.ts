import { z } from 'zod';

/** Who is at fault when something goes wrong. */
export type Fault = 'user' | 'model' | 'system';

/**
 * The error code table. Each code names one kind of failure and who is at fault; the CLI maps
 * codes to exit codes, and the wire form carries the code across processes.
 */
export const ERROR_CODES = {
  /** A flag, argument or command line that cannot be used. */
  usage: 'user',
  /** A configuration file or value that cannot be used. */
  config: 'user',
  /** A plan file that cannot be used: bad TOML, an unknown key, a field of the wrong shape. */
  plan_invalid: 'user',
  /**
   * A run file (`arbor runs export`) that cannot be read: not JSON, not a run file, a newer
   * format than this arbor reads, or fields that do not hold what they should.
   */
  run_file_invalid: 'user',
  /**
   * A replayed node's request differed from the recorded one (`arbor replay` without
   * `--continue-live`): the replay stops there, and says where and what.
   */
  replay_diverged: 'user',
  /** A frame that broke protocol v1. */
  protocol_violation: 'system',
  /** A frame larger than the 16 MiB cap. */
  frame_too_large: 'system',
  /** Every endpoint failed or is unusable (breakers open): maps to exit 4. */
  intel_unavailable: 'system',
  /** An endpoint refused the credential (401/403): maps to exit 4. */
  intel_auth: 'user',
  /** An endpoint rejected the request as malformed (a 4xx other than 401/403/408/429). */
  intel_bad_request: 'system',
  /** An endpoint answered with a body that is not the dialect's response shape. */
  intel_bad_response: 'system',
  /** A required MCP server could not be reached or failed to list its tools: maps to exit 6. */
  mcp_unavailable: 'system',
  /** A child could not be started: it exited, failed or timed out before `ready`. */
  spawn_failed: 'system',
  /** Budget admission refused a model call (the node's grant or the tree's ceiling is spent). */
  budget_refused: 'system',
  /** The operation was cancelled through its signal. */
  cancelled: 'user',
  /** The operation ran past its time limit. */
  timeout: 'system',
  /** Something arbor did not expect: a bug. */
  internal: 'system',
} as const satisfies Record<string, Fault>;
export type ErrorCode = keyof typeof ERROR_CODES;

export interface ArborErrorOptions {
  /** Structured facts about the failure (`nodeId`, `exitCode`, `timeoutMs`, …). */
  details?: Record<string, unknown>;
  cause?: unknown;
}

/** An error arbor raises on purpose: a code from the table, a message, structured details. */
export class ArborError extends Error {
  override readonly name = 'ArborError';
  readonly code: ErrorCode;
  readonly details: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, options: ArborErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.details = options.details ?? {};
  }

  get fault(): Fault {
    return ERROR_CODES[this.code];
  }
}

export function isArborError(value: unknown, code?: ErrorCode): value is ArborError {
  return value instanceof ArborError && (code === undefined || value.code === code);
}

/** The wire form of an error, for errors that cross a process boundary. */
export const ErrorPayloadSchema = z.object({
  code: z.string().min(1),
  message: z.string(),
  details: z.record(z.string(), z.unknown()).default({}),
});
export type ErrorPayload = z.infer<typeof ErrorPayloadSchema>;

/** Converts any thrown value to its wire form. Unknown errors become `internal`. */
export function toErrorPayload(error: unknown): ErrorPayload {
  if (error instanceof ArborError) {
    return { code: error.code, message: error.message, details: error.details };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { code: 'internal', message, details: {} };
}

/** Converts a wire error back into an `ArborError`. An unknown code becomes `internal`. */
export function fromErrorPayload(payload: ErrorPayload): ArborError {
  const code: ErrorCode = isErrorCode(payload.code) ? payload.code : 'internal';
  const details =
    code === payload.code ? payload.details : { ...payload.details, code: payload.code };
  return new ArborError(code, payload.message, { details });
}

function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_CODES, code);
}
