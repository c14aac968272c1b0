import type { ModelClient } from '../intel/model.js';
import type { OutputCapture, SessionHooks } from '../loop/index.js';
import type { SpawnPayload } from '../protocol/index.js';
import type { GuardedTools } from '../tools/guarded-tools.js';
import { admitOverChannel } from './admission.js';
import type { ControlChannel } from './control-channel.js';
import type { FrameWriter } from './frame-writer.js';
import type { Logger } from './logger.js';
import { sendTranscript } from './transcript-sender.js';

/** Everything a child's driver works with once setup is done. */
export interface ChildContext {
  payload: SpawnPayload;
  channel: ControlChannel;
  writer: FrameWriter;
  log: Logger;
  model: ModelClient;
  /** The node's tools under its runtime guard (content isolation, trajectory, trifecta). */
  tools: GuardedTools;
  /** Offer `finish` to the model (false when the allow-list excludes it). */
  offerFinish: boolean;
  /** The capture tool's state, when the result must match an output schema. */
  capture: OutputCapture | undefined;
}

/** Session hooks that report over the control channel and honour pause and budget. */
export function channelHooks(
  context: ChildContext,
  options: { admission: boolean } = { admission: true },
): SessionHooks {
  const { channel, writer } = context;
  const hooks: SessionHooks = {
    onEvent: (event) => {
      writer.event(event);
      // The risk score decays per step, after the step is reported.
      if (event.type === 'loop.step') context.tools.step();
    },
    onUsage: (usage, answered) => {
      // Tokens only: the supervisor prices them (the price table never loads in a child).
      const { model, endpoint, modelAsked } = answered;
      writer.send({
        type: 'usage',
        ...usage,
        model,
        endpoint,
        ...(modelAsked === undefined || modelAsked === model ? {} : { model_asked: modelAsked }),
      });
    },
    onTranscript: (entry) => {
      sendTranscript(writer, entry);
    },
    waitWhileHeld: async (signal) => {
      if (!channel.hold.paused || signal.aborted) return;
      writer.event({ type: 'loop.paused' });
      await channel.hold.wait(signal);
      writer.event({ type: 'loop.resumed', cancelled: signal.aborted });
    },
  };
  if (options.admission) hooks.admit = admitOverChannel(channel, writer, context.model);
  return hooks;
}

/**
 * Applies a swap parked on the channel, if any: the model client is re-pointed with fresh
 * breakers. Returns the policy of the applied swap. A swap the client refuses keeps the old
 * endpoints, and says so.
 */
export function applyParkedSwap(
  context: ChildContext,
): 'finish-on-old' | 'restart-turn' | undefined {
  const swap = context.channel.takeSwap();
  if (swap === undefined) return undefined;
  try {
    const before = context.model.model;
    context.model.swap(swap.intelligence);
    context.writer.event({
      type: 'intel.swapped',
      policy: swap.policy,
      endpoints: swap.intelligence.endpoints.length,
      modelChanged: before !== context.model.model,
    });
    return swap.policy;
  } catch (error) {
    context.writer.event({
      type: 'intel.swap_rejected',
      reason: error instanceof Error ? error.message : String(error),
    });
    return undefined;
  }
}
