import { ArborError, type McpServerSpec } from '../../protocol/index.js';
import { connectMcpServer, type ConnectMcpServerOptions } from './connect-mcp-server.js';
import type { McpConnection } from './mcp-connection.js';
import { checkCallTimeout, McpToolSource, type McpToolSourceOptions } from './mcp-tool-source.js';
import type { CloseOutcome } from './server-channel.js';

export interface ConnectMcpServersOptions
  extends Omit<ConnectMcpServerOptions, 'onListChanged'>, McpToolSourceOptions {
  /** Called with a server's name when it announces `list_changed`. */
  onListChanged?: ((server: string) => void) | undefined;
}

/** An optional server that could not be connected, and why (an `mcp_unavailable` message). */
interface SkippedMcpServer {
  name: string;
  reason: string;
  error: ArborError;
}

/** The connected servers of one node. */
export interface McpServerSet {
  /** One source per connected server, in the order of the specs. */
  sources: readonly McpToolSource[];
  connections: readonly McpConnection[];
  /** Optional servers that failed to connect: a warning for the caller to report. */
  skipped: readonly SkippedMcpServer[];
  /** Closes every connection (idempotent); resolves once every stdio process is gone. */
  closeAll(): Promise<CloseOutcome[]>;
}

function checkNames(specs: readonly McpServerSpec[]): void {
  const seen = new Set<string>();
  for (const { name } of specs) {
    if (seen.has(name)) {
      throw new ArborError(
        'config',
        `Expected MCP server names to be unique (they prefix tool names), got \`${name}\` twice.`,
        { details: { server: name } },
      );
    }
    seen.add(name);
  }
}

function asArborError(error: unknown): ArborError {
  if (error instanceof ArborError) return error;
  return new ArborError('internal', error instanceof Error ? error.message : String(error));
}

/**
 * Connects a node's MCP servers in parallel. A `required` server that fails rejects the whole
 * set with its `mcp_unavailable` error (exit 6 for the run): the other connects are cancelled and
 * every server already up is closed first. An optional server that fails is left out and named
 * in `skipped`.
 */
export async function connectMcpServers(
  specs: readonly McpServerSpec[],
  options: ConnectMcpServersOptions = {},
): Promise<McpServerSet> {
  checkNames(specs);
  const { onListChanged, callTimeoutMs, signal, ...connectOptions } = options;
  checkCallTimeout(callTimeoutMs);
  // A required failure cancels the connects still in flight: no point waiting out their timeouts.
  const abandon = new AbortController();
  const settled = await Promise.allSettled(
    specs.map(async (spec) => {
      try {
        return await connectMcpServer(spec, {
          ...connectOptions,
          signal: AbortSignal.any([abandon.signal, ...(signal ? [signal] : [])]),
          onListChanged: () => onListChanged?.(spec.name),
        });
      } catch (error) {
        if (spec.required) abandon.abort(error);
        throw error;
      }
    }),
  );
  const connections = settled.flatMap((result) =>
    result.status === 'fulfilled' ? [result.value] : [],
  );
  const closeAll = (): Promise<CloseOutcome[]> => Promise.all(connections.map((c) => c.close()));
  if (signal?.aborted === true || abandon.signal.aborted) {
    await closeAll();
    if (signal?.aborted === true) {
      throw new ArborError('cancelled', 'Connecting the MCP servers was cancelled.', {
        cause: signal.reason,
      });
    }
    throw asArborError(abandon.signal.reason);
  }
  const skipped: SkippedMcpServer[] = [];
  settled.forEach((result, index) => {
    const spec = specs[index];
    if (result.status === 'rejected' && spec !== undefined) {
      const error = asArborError(result.reason);
      skipped.push({ name: spec.name, reason: error.message, error });
    }
  });
  const sources = connections.map((connection) => new McpToolSource(connection, { callTimeoutMs }));
  return { sources, connections, skipped, closeAll };
}
