/**
 * Why one HTTP attempt against one endpoint failed, in classes the pool acts on:
 * - `connection`, `timeout`, `http` (408, 429, 5xx), `stream_error`: the endpoint is unwell;
 *   `http` and `stream_error` are retried on the same endpoint, then every class fails over;
 * - `auth` (401/403), `bad_request` (other 3xx/4xx), `bad_response` (a body that is not the
 *   dialect's shape): not retried and not failed over, the call fails;
 * - `cancelled`: the caller gave up; nobody's fault, nothing recorded.
 */
export type FailureClass =
  | 'connection'
  | 'timeout'
  | 'http'
  | 'stream_error'
  | 'auth'
  | 'bad_request'
  | 'bad_response'
  | 'cancelled';

export interface AttemptFailureInit {
  /** HTTP status, when the endpoint answered. */
  status?: number;
  /** How long the endpoint asked us to wait (`Retry-After`), in milliseconds. */
  retryAfterMs?: number;
}

/**
 * A failed attempt. Its message is written by arbor and may quote what the endpoint said, never
 * the request's URL or credential: the pool scrubs it again before it leaves the layer.
 */
export class AttemptFailure extends Error {
  override readonly name = 'AttemptFailure';
  readonly failureClass: FailureClass;
  readonly status: number | undefined;
  readonly retryAfterMs: number | undefined;

  constructor(failureClass: FailureClass, message: string, init: AttemptFailureInit = {}) {
    super(message);
    this.failureClass = failureClass;
    this.status = init.status;
    this.retryAfterMs = init.retryAfterMs;
  }

  /** The short kind shown in health records and error lists: `status_503`, `timeout`, `auth`, … */
  get kind(): string {
    return this.failureClass === 'http' && this.status !== undefined
      ? `status_${this.status}`
      : this.failureClass;
  }

  /** Worth another attempt on the same endpoint. */
  get isRetryable(): boolean {
    return this.failureClass === 'http' || this.failureClass === 'stream_error';
  }

  /** Ends the whole call: trying another endpoint would not help or would hide a mistake. */
  get isFatal(): boolean {
    return (
      this.failureClass === 'auth' ||
      this.failureClass === 'bad_request' ||
      this.failureClass === 'bad_response'
    );
  }

  /** Says something about the endpoint's availability, so its breaker counts it. */
  get countsAgainstEndpoint(): boolean {
    return this.failureClass !== 'auth' && this.failureClass !== 'bad_request';
  }
}

/** The class of a non-2xx status. */
export function classifyStatus(status: number): FailureClass {
  if (status === 401 || status === 403) return 'auth';
  if (status === 408 || status === 429 || status >= 500) return 'http';
  return 'bad_request';
}

/** Network error codes, as Node and undici report them, that mean "could not talk to it". */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'EHOSTDOWN',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/** What the common connection codes mean, in words; the code follows in parentheses. */
const CONNECTION_WORDS: Record<string, string> = {
  ECONNREFUSED: 'connection refused: nothing listens at that address and port',
  ECONNRESET: 'connection reset by the other side',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed for now',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
};

function causeCode(error: unknown): string | undefined {
  for (let at: unknown = error, depth = 0; at instanceof Error && depth < 4; depth++) {
    const code = (at as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    at = at.cause;
  }
  return undefined;
}

/**
 * Classifies what `fetch` (or reading its body) threw. The raw error is never passed on: undici's
 * messages carry the host and port, and a header error quotes the header value — a credential.
 * Errors that are not fetch's (a bug in arbor) give `undefined`, for the caller to rethrow.
 */
export function classifyFetchError(error: unknown): AttemptFailure | undefined {
  if (error instanceof AttemptFailure) return error;
  if (!(error instanceof TypeError)) return undefined;
  const code = causeCode(error);
  if (code !== undefined && CONNECTION_CODES.has(code)) {
    return new AttemptFailure(
      'connection',
      `${CONNECTION_WORDS[code] ?? 'connection failed'} (${code})`,
    );
  }
  if (
    error.message === 'fetch failed' &&
    error.cause instanceof Error &&
    error.cause.message === 'bad port'
  ) {
    // The fetch standard blocks ports of other protocols (1, 25, 6000…) before connecting.
    return new AttemptFailure(
      'connection',
      'not connected: fetch refuses to use that port (bad port)',
    );
  }
  if (error.message === 'fetch failed' || error.message === 'terminated') {
    return new AttemptFailure('connection', `connection failed (${code ?? 'closed'})`);
  }
  // Headers and URL are checked before anything is sent: a value with a newline, say.
  if (INVALID_REQUEST.test(error.message)) {
    return new AttemptFailure(
      'bad_request',
      'the request could not be sent: a header or the URL is not valid HTTP',
    );
  }
  return undefined;
}

/** What undici says when it refuses to send a request (the messages quote the bad value). */
const INVALID_REQUEST = /invalid header|Failed to parse URL|is not a valid|ByteString/i;
