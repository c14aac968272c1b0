import { ArborError } from '../protocol/index.js';
import type { Admission } from '../loop/index.js';
import type { ControlChannel } from './control-channel.js';
import type { FrameWriter } from './frame-writer.js';

/**
 * Budget admission over the control channel: before each model call the child asks with an
 * estimate and does what the supervisor answers — go (perhaps on a cheaper model), wait and ask
 * again, or stop because the budget is spent.
 */
export function admitOverChannel(channel: ControlChannel, writer: FrameWriter) {
  return async (estimate: number, options: { signal: AbortSignal }): Promise<Admission> => {
    for (;;) {
      const grant = await channel.budgetReplies.request(
        'budget request',
        (id) => {
          writer.send({ type: 'budget_request', id, estimate });
        },
        { signal: options.signal },
      );
      if (grant.ok) return grant.model === undefined ? {} : { model: grant.model };
      if (grant.reason !== undefined || grant.wait_ms === undefined) {
        throw new ArborError(
          'budget_refused',
          grant.reason ?? 'the supervisor refused budget for this call',
          {
            details: { limit: grant.limit ?? 'usd' },
          },
        );
      }
      await abortableDelay(grant.wait_ms, options.signal);
    }
  };
}

function abortableDelay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(new ArborError('cancelled', 'cancelled while waiting for budget'));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new ArborError('cancelled', 'cancelled while waiting for budget'));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
