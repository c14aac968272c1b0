import type { ToolDef } from '../protocol/index.js';
import type { Tool } from '../tools/index.js';
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
      const reply = await channel.toolReplies.request(
        `tool \`${def.name}\``,
        (id) => {
          writer.send({ type: 'tool_request', id, name: def.name, args });
        },
        { signal: context.signal },
      );
      return { content: reply.result, isError: reply.is_error };
    },
  };
}
