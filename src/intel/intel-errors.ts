import { ArborError } from '../protocol/index.js';
import type { AttemptFailure } from './attempt-failure.js';

/** Why one endpoint of a sweep did not answer. Index and class only: never a URL or a key. */
export interface EndpointMiss {
  index: number;
  /** `status_503`, `connection`, `timeout`, `breaker_open`, … */
  kind: string;
  /** HTTP attempts made on this endpoint during the sweep (0 when skipped). */
  attempts: number;
  /** What went wrong, in words, scrubbed of credentials and addresses. */
  detail: string;
}

function describeMiss(miss: EndpointMiss): string {
  const tries = miss.attempts > 1 ? ` after ${miss.attempts} attempts` : '';
  return `endpoint ${miss.index}: ${miss.kind}${tries} (${miss.detail})`;
}

/** Every endpoint failed or was skipped: exit 4 for a one-shot run. */
export function unavailableError(misses: readonly EndpointMiss[]): ArborError {
  return new ArborError(
    'intel_unavailable',
    `No intelligence endpoint answered: ${misses.map(describeMiss).join('; ')}.`,
    { details: { endpoints: misses.map((miss) => ({ ...miss })) } },
  );
}

const FATAL_CODE = {
  auth: 'intel_auth',
  bad_request: 'intel_bad_request',
  bad_response: 'intel_bad_response',
} as const;

const FATAL_WHAT = {
  auth: 'refused the credential',
  bad_request: 'rejected the request',
  bad_response: 'answered with something arbor cannot read',
} as const;

/**
 * A failure that ends the call without failover. `detail` is the failure's message, already
 * scrubbed. Auth failures say which endpoint, so the operator knows which key to fix.
 */
export function fatalError(
  index: number,
  failure: AttemptFailure,
  detail: string,
  responseName: string,
): ArborError {
  const failureClass = failure.failureClass as keyof typeof FATAL_CODE;
  const hint =
    failureClass === 'auth'
      ? ' Check the API key configured for that endpoint.'
      : failureClass === 'bad_response'
        ? ` Expected ${responseName}.`
        : '';
  return new ArborError(
    FATAL_CODE[failureClass],
    `Endpoint ${index} ${FATAL_WHAT[failureClass]}: ${detail}.${hint}`,
    {
      details: {
        endpointIndex: index,
        kind: failure.kind,
        ...(failure.status === undefined ? {} : { status: failure.status }),
      },
    },
  );
}

/** The caller aborted. The reason it gave is kept as the cause. */
export function cancelledError(reason: unknown): ArborError {
  return new ArborError('cancelled', 'The model call was cancelled.', { cause: reason });
}

/** A streamed answer broke after its first delta, too late to fail over. */
export function brokenStreamError(
  index: number,
  failure: AttemptFailure,
  detail: string,
): ArborError {
  const code = failure.failureClass === 'bad_response' ? 'intel_bad_response' : 'intel_unavailable';
  return new ArborError(
    code,
    `Endpoint ${index} broke off a streamed answer: ${failure.kind} (${detail}).`,
    { details: { endpointIndex: index, kind: failure.kind, midStream: true } },
  );
}
