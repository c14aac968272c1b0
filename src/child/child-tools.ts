import { OutputCapture } from '../loop/index.js';
import { type SpawnPayload, type ToolDef } from '../protocol/index.js';
// Not the `tools/index.js` barrel: it re-exports the MCP client, which a child loads only when its
// payload grants a server (see the dynamic import below).
import {
  builtinTools,
  everyBuiltinTool,
  type BuiltinToolsOptions,
} from '../tools/builtin/index.js';
import { internalToolDefs } from '../tools/internal-catalog.js';
import type { McpServerSet } from '../tools/mcp/index.js';
import type { Tool, ToolSource } from '../tools/tool.js';
import { ToolRegistry } from '../tools/tool-registry.js';
import type { GuardedTools } from '../tools/guarded-tools.js';
import { guardChildTools } from './child-guard.js';
import type { ControlChannel } from './control-channel.js';
import type { FrameWriter } from './frame-writer.js';
import type { Logger } from './logger.js';
import { remoteTool } from './remote-tool.js';
import { recordedMcpSources, servedFromRecord, type RecordedTools } from './replay-tools.js';
import { allowedTools } from '../authority/index.js';

export interface ChildTools {
  registry: ToolRegistry;
  /** The registry under the runtime guard: what the loop calls. */
  guard: GuardedTools;
  capture: OutputCapture | undefined;
  /** Closes the MCP connections (and stops stdio servers). */
  close(): Promise<void>;
}

/**
 * The tools of a child, in precedence order: internal tools the supervisor serves (and the
 * capture tool of a structured result, and the tools the supervisor routes), the built-in tools
 * under the child's caveats, and the tools of its granted MCP servers. A tool named in
 * `gated_tools` is never run here: its call goes up as a `tool_request`, for the supervisor to
 * judge. Connecting a required MCP server that is down throws `mcp_unavailable`.
 */
export async function buildChildTools(
  payload: SpawnPayload,
  channel: ControlChannel,
  writer: FrameWriter,
  log: Logger,
  options: { cwd: string; signal: AbortSignal; version: string; recorded?: RecordedTools },
): Promise<ChildTools> {
  const remote = (def: ToolDef): Tool => remoteTool(def, channel, writer);
  const gated = new Set(payload.gated_tools);
  const schema = payload.role === 'turn' ? payload.turn?.output_schema : payload.output_schema;
  const capture = schema === undefined ? undefined : new OutputCapture(schema);
  const internal: ToolSource = {
    kind: 'internal',
    name: 'internal',
    tools: () => [
      ...(capture === undefined ? [] : [capture.tool]),
      ...internalToolDefs().map(remote),
      ...payload.routed_tools.map(remote),
    ],
  };
  let servers: McpServerSet | undefined;
  const { recorded } = options;
  const replayed =
    recorded === undefined || payload.replay === undefined || recorded.only !== undefined
      ? undefined
      : recordedMcpSources(payload, payload.replay);
  if (payload.mcp_servers.length > 0 && replayed === undefined) {
    // Loaded only by a child that has servers: the MCP client is most of a child's code.
    const { connectMcpServers } = await import('../tools/mcp/index.js');
    servers = await connectMcpServers(payload.mcp_servers, {
      signal: options.signal,
      clientInfo: { name: 'arbor', version: options.version },
    });
    for (const skipped of servers.skipped)
      log.log('warn', 'mcp.skipped', { server: skipped.name, reason: skipped.reason });
  }
  const grant: BuiltinToolsOptions = {
    caveats: payload.caveats,
    cwd: options.cwd,
    sandbox: payload.sandbox,
    protect: payload.protected_paths,
    namedHosts: payload.named_hosts,
    netCredentials: payload.net_credentials ?? [],
    egress: payload.egress?.control,
  };
  const sources = [internal, builtinTools(grant), ...(replayed ?? servers?.sources ?? [])]
    .map((source) => gatedThroughSupervisor(source, gated, remote))
    // A replay with recorded tool results answers every call from the record, gated ones too.
    .map((source) =>
      recorded === undefined ? source : servedFromRecord(source, recorded, capture?.tool.def.name),
    );
  const allow = allowedTools(payload);
  const registry = new ToolRegistry({
    sources,
    // The capture tool is the only way to answer a structured request: no allow-list hides it.
    allow: allow === undefined || capture === undefined ? allow : [...allow, capture.tool.def.name],
    maxCalls: payload.caveats.max_calls,
    onRefreshError: (source, error) => {
      log.log('warn', 'tools.refresh_failed', {
        source,
        reason: error instanceof Error ? error.message : String(error),
      });
    },
  });
  // What each built-in declares to the trifecta, offered or not (`everyBuiltinTool`).
  const declared = new Map(everyBuiltinTool(grant).map((tool) => [tool.def.name, tool.trifecta]));
  const guard = guardChildTools(
    payload,
    registry,
    { builtin: (name) => declared.get(name), sourceOf: (name) => registry.sourceOf(name) },
    channel,
    writer,
  );
  return {
    registry,
    guard,
    capture,
    close: async () => {
      await servers?.closeAll();
    },
  };
}

/** A source whose gated tools are replaced by calls up the control channel, same definition. */
function gatedThroughSupervisor(
  source: ToolSource,
  gated: ReadonlySet<string>,
  remote: (def: ToolDef) => Tool,
): ToolSource {
  if (gated.size === 0 || source.kind === 'internal') return source;
  return {
    kind: source.kind,
    name: source.name,
    tools: () => source.tools().map((tool) => (gated.has(tool.def.name) ? remote(tool.def) : tool)),
    ...(source.refresh === undefined
      ? {}
      : { refresh: (o: { signal: AbortSignal }) => source.refresh?.(o) ?? Promise.resolve() }),
  };
}
