import { classifyTransportError } from './attempt-failure.js';
import type { EndpointPool } from './endpoint-pool.js';
import { brokenStreamError, cancelledError } from './intel-errors.js';
import type { OpenedStream } from './model-attempts.js';
import type { ModelDelta } from './model.js';
import type { PoolEndpoint } from './pool-endpoint.js';
import { toModelResponse, type PreparedCall } from './prepare-call.js';

/**
 * Yields a stream that the pool has opened: its first deltas, the rest as they come, then `done`.
 * A failure now is past failover (the caller has seen part of the answer): it is recorded against
 * the endpoint and thrown. Leaving early — a `break`, a cancel — aborts the request, which closes
 * its socket.
 */
export async function* readStream(
  opened: OpenedStream,
  endpoint: PoolEndpoint,
  pool: EndpointPool,
  prepared: PreparedCall,
  signal: AbortSignal,
): AsyncGenerator<ModelDelta> {
  const { answer, deadline } = opened;
  let isComplete = false;
  try {
    yield* opened.first;
    let response;
    try {
      for (let batch = await answer.read(); batch.length > 0; batch = await answer.read()) {
        yield* batch;
      }
      response = toModelResponse(answer.finish(), endpoint, prepared);
    } catch (error) {
      if (signal.aborted) throw cancelledError(signal.reason);
      const failure = deadline.isTimedOut
        ? classifyTransportError(deadline.signal.reason)
        : classifyTransportError(error);
      if (failure === undefined) throw error;
      pool.recordLateFailure(endpoint, failure);
      throw brokenStreamError(endpoint.index, failure, endpoint.scrub(failure.message));
    }
    isComplete = true;
    yield { type: 'done', response };
  } finally {
    deadline.dispose(!isComplete);
  }
}
