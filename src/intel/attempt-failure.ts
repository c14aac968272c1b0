import { TransportError } from './http-transport.js';

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

/** What the common connection codes mean, in words; the code follows in parentheses. */
const CONNECTION_WORDS: Record<string, string> = {
  ECONNREFUSED: 'connection refused: nothing listens at that address and port',
  ECONNRESET: 'connection reset by the other side',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed for now',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
};

/** Node's codes for a request it refuses to send (its messages quote the bad name). */
const INVALID_REQUEST_CODES = new Set([
  'ERR_INVALID_CHAR',
  'ERR_INVALID_HTTP_TOKEN',
  'ERR_HTTP_INVALID_HEADER_VALUE',
  'ERR_INVALID_URL',
  'ERR_INVALID_PROTOCOL',
  'ERR_UNESCAPED_CHARACTERS',
]);

/**
 * Classifies what the HTTP transport (or reading its body) threw. The raw error is never passed
 * on: Node's messages carry the host and port. Every failure to connect or to keep the connection
 * (refused, reset, timed out, a TLS handshake that failed, an answer that is not HTTP) is a
 * `connection` failure, as `fetch failed` was. Errors that are not the transport's (a bug in arbor)
 * give `undefined`, for the caller to rethrow.
 */
export function classifyTransportError(error: unknown): AttemptFailure | undefined {
  if (error instanceof AttemptFailure) return error;
  if (!(error instanceof TransportError)) return undefined;
  const { code } = error;
  if (INVALID_REQUEST_CODES.has(code)) {
    return new AttemptFailure(
      'bad_request',
      'the request could not be sent: a header or the URL is not valid HTTP',
    );
  }
  return new AttemptFailure(
    'connection',
    `${CONNECTION_WORDS[code] ?? 'connection failed'} (${code})`,
  );
}
