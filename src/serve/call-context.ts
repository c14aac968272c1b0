import { A2A_VERSION_HEADER } from '@a2a-js/sdk';
import { ServerCallContext } from '@a2a-js/sdk/server';
import { PRINCIPAL_KEY, SIGNAL_KEY, TRACEPARENT_KEY } from './a2a-handler.js';
import type { Principal } from './principals.js';

/** The variables the HTTP surface puts on a request: the principal its bearer token names. */
export interface PrincipalEnv {
  Variables: { principal: Principal | undefined };
}

/** What a request without a principal's token is told, on every route that needs one. */
export const BEARER_REQUIRED = 'A bearer token is required (Authorization: Bearer TOKEN).';

/** One A2A call as the handler sees it, whichever binding carried it. */
export interface A2ACall {
  context: ServerCallContext;
  /** Aborted when the caller goes away mid-stream, so no reader of a task is left waiting. */
  gone: AbortController;
}

/**
 * The call context of an A2A request on either binding (JSON-RPC, HTTP+JSON): the protocol
 * version it asked for, the principal, a signal aborted when the caller goes away, and its W3C
 * `traceparent` when it sent one.
 */
export function callContext(request: Request, principal: Principal): A2ACall {
  const version = request.headers.get(A2A_VERSION_HEADER);
  const traceparent = request.headers.get('traceparent');
  const gone = new AbortController();
  const state = new Map<string, unknown>([
    [PRINCIPAL_KEY, principal],
    [SIGNAL_KEY, AbortSignal.any([request.signal, gone.signal])],
  ]);
  if (traceparent !== null) state.set(TRACEPARENT_KEY, traceparent);
  const context = new ServerCallContext({
    ...(version === null ? {} : { requestedVersion: version }),
    state,
  });
  return { context, gone };
}
