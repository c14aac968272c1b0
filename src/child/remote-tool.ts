import type { ToolDef } from '../protocol/index.js';
import { HISTORY_ARG } from '../tools/internal-catalog.js';
import type { Tool } from '../tools/tool.js';
import type { ControlChannel } from './control-channel.js';
import type { FrameWriter } from './frame-writer.js';

/**
 * A tool the child does not run itself: each call goes up as a `tool_request` and the supervisor's
 * `tool_result` comes back as the output. Internal tools and gated tools work this way.
 */
export function remoteTool(def: ToolDef, channel: ControlChannel, writer: FrameWriter): Tool {
  return {
    def,
    run: async (args, context) => {
      // A fork starts from the caller's conversation: the runtime (never the model) attaches it.
      const { [HISTORY_ARG]: _forged, ...rest } = args;
      const forking = def.name === 'subagent.run' && rest.provider === 'fork';
      const sent = forking ? { ...rest, [HISTORY_ARG]: [...(context.history?.() ?? [])] } : rest;
      const reply = await channel.toolReplies.request(
        `tool \`${def.name}\``,
        (id) => {
          writer.send({ type: 'tool_request', id, name: def.name, args: sent });
        },
        { signal: context.signal },
      );
      return {
        content: reply.result,
        isError: reply.is_error,
        ...(reply.refused === true ? { refused: true } : {}),
        ...(reply.taint === undefined ? {} : { taint: reply.taint }),
      };
    },
  };
}
