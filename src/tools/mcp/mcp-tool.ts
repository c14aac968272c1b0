import type { Tool as McpListedTool } from '@modelcontextprotocol/sdk/types.js';
import { ArborError, type JsonObject } from '../../protocol/index.js';
import { toolError, type Tool, type ToolCallContext, type ToolOutput } from '../tool.js';
import { describeCallError } from './call-error.js';
import { toMcpMeta } from './call-meta.js';
import { toToolOutput } from './call-result.js';
import { isAborted } from './is-aborted.js';
import type { McpConnection } from './mcp-connection.js';

export interface McpToolOptions {
  /** The name the model sees: `<server>.<tool>`. */
  name: string;
  /** How long one call may take, in milliseconds. */
  callTimeoutMs: number;
}

/**
 * One MCP tool as an arbor `Tool`. A call carries the node's correlation in `_meta`, is cancelled
 * on the server when the caller's signal aborts (and then rethrows), and turns any other failure
 * into a tool error the model can read: a broken server must not crash the turn.
 */
export function createMcpTool(
  connection: McpConnection,
  listed: McpListedTool,
  options: McpToolOptions,
): Tool {
  const { name, callTimeoutMs } = options;
  return {
    def: {
      name,
      description: listed.description ?? listed.title ?? '',
      input_schema: listed.inputSchema,
    },
    async run(args: JsonObject, context: ToolCallContext): Promise<ToolOutput> {
      const cancelled = (): ArborError =>
        new ArborError('cancelled', `The call to \`${name}\` was cancelled.`, {
          details: { server: connection.name, tool: name },
          cause: context.signal.reason,
        });
      if (context.signal.aborted) throw cancelled();
      // A call-scoped signal: the SDK never removes its abort listener, and the caller's signal
      // lives for the whole turn.
      const call = new AbortController();
      const forward = (): void => {
        call.abort(context.signal.reason);
      };
      context.signal.addEventListener('abort', forward, { once: true });
      try {
        const result = await connection.callTool(listed.name, args, {
          signal: call.signal,
          meta: toMcpMeta(context.meta),
          timeoutMs: callTimeoutMs,
        });
        return toToolOutput(result);
      } catch (error) {
        if (isAborted(context.signal)) throw cancelled();
        return toolError(
          describeCallError(error, {
            server: connection.name,
            tool: name,
            timeoutMs: callTimeoutMs,
            isClosed: connection.isClosed,
            scrub: (text) => connection.scrub(text),
          }),
        );
      } finally {
        context.signal.removeEventListener('abort', forward);
      }
    },
  };
}
