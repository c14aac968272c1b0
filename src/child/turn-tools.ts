import type { ToolCall, ToolDef, TurnSpec } from '../protocol/index.js';
import { toolError, type ToolCallContext, type ToolHost, type ToolOutput } from '../tools/tool.js';
import type { ControlChannel } from './control-channel.js';
import type { FrameWriter } from './frame-writer.js';
import { remoteTool } from './remote-tool.js';

/**
 * The tools of a turn worker: exactly those its turn lists, as listed. A name in `internal` goes
 * to the supervisor as a `tool_request`; any other is dispatched through the child's own tools
 * (built-ins, and MCP servers it holds); a name the turn does not list is refused like an unknown
 * tool, whatever the child could otherwise call.
 */
export function turnTools(
  turn: TurnSpec,
  own: ToolHost,
  channel: ControlChannel,
  writer: FrameWriter,
): ToolHost {
  const listed = new Map<string, ToolDef>(turn.tools.map((tool) => [tool.name, tool]));
  const internal = new Set(turn.internal);
  return {
    definitions: () => [...listed.values()],
    call: async (call: ToolCall, context: ToolCallContext): Promise<ToolOutput> => {
      const def = listed.get(call.name);
      if (def === undefined)
        return toolError(
          `Unknown tool \`${call.name}\`. Available tools: ${[...listed.keys()].join(', ') || 'none'}.`,
        );
      if (internal.has(call.name)) return remoteTool(def, channel, writer).run(call.args, context);
      return own.call(call, context);
    },
    ...(own.refresh === undefined
      ? {}
      : {
          refresh: (options: { signal: AbortSignal }) =>
            own.refresh?.(options) ?? Promise.resolve(),
        }),
  };
}
