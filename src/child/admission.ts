import { setTimeout as wait } from 'node:timers/promises';
import { ArborError } from '../protocol/index.js';
import type { ModelClient } from '../intel/model.js';
import type { Admission } from '../loop/index.js';
import type { ControlChannel } from './control-channel.js';
import type { FrameWriter } from './frame-writer.js';
import { nextEndpoint } from './rate-limit-frames.js';

/**
 * Budget admission over the control channel: before each model call the child asks with an
 * estimate (and the endpoint the call will try first, whose provider limits the supervisor
 * weighs) and does what the supervisor answers — go (perhaps on a cheaper model), wait and ask
 * again, or stop because the budget is spent.
 */
export function admitOverChannel(
  channel: ControlChannel,
  writer: FrameWriter,
  model?: Pick<ModelClient, 'health'>,
) {
  return async (estimate: number, options: { signal: AbortSignal }): Promise<Admission> => {
    for (;;) {
      const grant = await channel.budgetReplies.request(
        'budget request',
        (id) => {
          const endpoint = model === undefined ? undefined : nextEndpoint(model.health());
          writer.send({
            type: 'budget_request',
            id,
            estimate,
            ...(endpoint === undefined ? {} : { endpoint }),
          });
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
      await waitForBudget(grant.wait_ms, options.signal);
    }
  };
}

/** Waits as the supervisor said; a cancel while waiting is the `cancelled` error. */
async function waitForBudget(ms: number, signal: AbortSignal): Promise<void> {
  try {
    await wait(ms, undefined, { signal });
  } catch (error) {
    if (!signal.aborted) throw error;
    throw new ArborError('cancelled', 'cancelled while waiting for budget', { cause: error });
  }
}
