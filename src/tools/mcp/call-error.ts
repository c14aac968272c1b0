import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';

export interface CallErrorContext {
  server: string;
  /** The tool's name as the model knows it. */
  tool: string;
  timeoutMs: number;
  isClosed: boolean;
  scrub: (text: string) => string;
}

function networkCode(error: unknown): string | undefined {
  const cause = error instanceof Error ? error.cause : undefined;
  const code = (cause as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * A failed `tools/call` (not a tool's own error result: a timeout, a JSON-RPC error, a dead
 * transport) as a sentence the model can read and act on. The server's own words are quoted
 * scrubbed; Node's network messages (host and port) are not quoted.
 */
export function describeCallError(error: unknown, context: CallErrorContext): string {
  const { server, tool } = context;
  if (error instanceof McpError && error.code === (ErrorCode.RequestTimeout as number)) {
    return `Tool \`${tool}\` did not answer within ${context.timeoutMs} ms; the call was cancelled.`;
  }
  if (
    context.isClosed ||
    (error instanceof McpError && error.code === (ErrorCode.ConnectionClosed as number)) ||
    (error instanceof Error && error.message === 'Not connected')
  ) {
    return `Tool \`${tool}\` is unavailable: MCP server \`${server}\` is no longer connected.`;
  }
  if (error instanceof StreamableHTTPError && error.code !== undefined && error.code > 0) {
    return `Tool \`${tool}\` failed: MCP server \`${server}\` answered HTTP ${error.code}.`;
  }
  const network = networkCode(error);
  if (network !== undefined) {
    return `Tool \`${tool}\` failed: MCP server \`${server}\` could not be reached (${network}).`;
  }
  const message = error instanceof Error ? error.message : String(error);
  return `Tool \`${tool}\` failed: ${context.scrub(message)}`;
}
