import { ArborError, type McpRoute } from '../../protocol/index.js';
import type { Tool, ToolKind, ToolSource } from '../tool.js';
import type { McpConnection } from './mcp-connection.js';
import { createMcpTool } from './mcp-tool.js';
import { mcpToolNames } from './tool-names.js';

/** How long one MCP tool call may take by default: 600 s, as agentd caps it. */
const DEFAULT_CALL_TIMEOUT_MS = 600_000;

export interface McpToolSourceOptions {
  /** How long one tool call may take, in milliseconds (default 600 000). */
  callTimeoutMs?: number | undefined;
}

/** The per-call timeout to use; a value that is not a positive integer is a `config` error. */
export function checkCallTimeout(value: number | undefined): number {
  const timeout = value ?? DEFAULT_CALL_TIMEOUT_MS;
  if (!Number.isInteger(timeout) || timeout <= 0) {
    throw new ArborError(
      'config',
      `Expected \`callTimeoutMs\` to be a positive integer (ms), got \`${timeout}\`.`,
    );
  }
  return timeout;
}

interface Built {
  version: number;
  tools: Tool[];
  routes: Record<string, McpRoute>;
}

/**
 * The tools of one MCP server as arbor tools, named `<server>.<tool>`. The list follows the
 * connection's: `refresh` (at a turn boundary) re-lists after `list_changed`, and `tools()` then
 * returns the new list. Tools that can only run as MCP tasks are left out: arbor calls tools
 * directly.
 */
export class McpToolSource implements ToolSource {
  readonly kind: ToolKind = 'mcp';
  readonly name: string;
  readonly connection: McpConnection;
  readonly #callTimeoutMs: number;
  #built: Built | undefined;

  constructor(connection: McpConnection, options: McpToolSourceOptions = {}) {
    this.connection = connection;
    this.name = `mcp:${connection.name}`;
    this.#callTimeoutMs = checkCallTimeout(options.callTimeoutMs);
  }

  tools(): readonly Tool[] {
    return this.#build().tools;
  }

  /** Where each tool lives: model-facing name → server and the tool's name there (`mcp_routes`). */
  routes(): Readonly<Record<string, McpRoute>> {
    return this.#build().routes;
  }

  async refresh(options: { signal: AbortSignal }): Promise<void> {
    await this.connection.refresh(options);
  }

  #build(): Built {
    const version = this.connection.listVersion;
    if (this.#built?.version === version) return this.#built;
    const server = this.connection.name;
    const listed = this.connection
      .tools()
      .filter((tool) => tool.execution?.taskSupport !== 'required');
    const names = mcpToolNames(
      server,
      listed.map((tool) => tool.name),
    );
    const byTool = new Map([...names].map(([exposed, tool]) => [tool, exposed]));
    const tools: Tool[] = [];
    const routes: Record<string, McpRoute> = {};
    for (const tool of listed) {
      const name = byTool.get(tool.name);
      if (name === undefined || Object.hasOwn(routes, name)) continue;
      tools.push(
        createMcpTool(this.connection, tool, { name, callTimeoutMs: this.#callTimeoutMs }),
      );
      routes[name] = { server, tool: tool.name };
    }
    this.#built = { version, tools, routes };
    return this.#built;
  }
}
