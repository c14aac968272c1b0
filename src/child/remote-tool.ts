import { MAX_FRAME_BYTES, type ToolDef } from '../protocol/index.js';
import { HISTORY_ARG } from '../tools/internal-catalog.js';
import type { Tool } from '../tools/tool.js';
import type { ControlChannel } from './control-channel.js';
import type { FrameWriter } from './frame-writer.js';

/** Room in a `tool_request` frame for what is not the arguments (type, id, name). */
const FRAME_SLACK = 4096;

/**
 * A tool the child does not run itself: each call goes up as a `tool_request` and the supervisor's
 * `tool_result` comes back as the output. Internal tools and gated tools work this way. A call
 * whose arguments cannot fit in one frame is answered here with an error the model can act on (it
 * is the model's call that is too large), and never sent: the frame would be refused.
 */
export function remoteTool(def: ToolDef, channel: ControlChannel, writer: FrameWriter): Tool {
  return {
    def,
    run: async (args, context) => {
      // A fork starts from the caller's conversation: the runtime (never the model) attaches it.
      const { [HISTORY_ARG]: _forged, ...rest } = args;
      const forking = def.name === 'subagent.run' && rest.provider === 'fork';
      const sent = forking ? { ...rest, [HISTORY_ARG]: [...(context.history?.() ?? [])] } : rest;
      const bytes = argsBytes(sent);
      if (bytes > MAX_FRAME_BYTES - FRAME_SLACK)
        return {
          content: `The arguments of \`${def.name}\` are ${bytes} bytes as JSON; a call the supervisor serves carries at most ${MAX_FRAME_BYTES - FRAME_SLACK} bytes of arguments (one protocol frame, 16 MiB). Make several smaller calls instead.`,
          isError: true,
        };
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

/** The arguments' size in UTF-8 bytes as JSON (counted exactly only when it could matter). */
function argsBytes(args: Record<string, unknown>): number {
  const text = JSON.stringify(args);
  return text.length * 3 <= MAX_FRAME_BYTES ? text.length : Buffer.byteLength(text, 'utf8');
}
