import { Trajectory, matchesToolPattern } from '../authority/index.js';
import { SensitiveMatcher } from '../authority/sensitive-paths.js';
import type { JsonObject, SpawnPayload, TrifectaTag } from '../protocol/index.js';
import { mintMarker } from '../tools/content/index.js';
import { GuardedTools, type EgressApproval, type ToolProfile } from '../tools/guarded-tools.js';
import { EGRESS_APPROVAL } from '../tools/internal-catalog.js';
import type { ToolHost } from '../tools/tool.js';
import type { ControlChannel } from './control-channel.js';
import type { FrameWriter } from './frame-writer.js';

/** What the built-in tools are, as the trifecta sees them. */
const FILE_TOOLS = new Set(['fs.read', 'fs.list', 'fs.glob', 'fs.write', 'fs.edit']);

/**
 * The child's tools under its runtime guard: content isolation with the run's marker, the
 * trajectory seeded from the parent, and egress approval asked of the supervisor.
 */
export function guardChildTools(
  payload: SpawnPayload,
  host: ToolHost,
  sourceOf: (name: string) => string | undefined,
  channel: ControlChannel,
  writer: FrameWriter,
): GuardedTools {
  const guard = new GuardedTools({
    host,
    profile: toolProfiles(payload, sourceOf),
    trajectory: new Trajectory({ risk: payload.risk_seed, taint: payload.inherited_taint }),
    trifecta: payload.runtime_trifecta,
    isolation: { ...payload.content_isolation, marker: isolationMarker(payload) },
    sensitive: new SensitiveMatcher(payload.runtime_trifecta.sensitive_paths),
    approve: (request, signal) => askApproval(request, signal, channel, writer),
    onEvent: (event, fields) => {
      writer.send({ type: 'event', event, fields });
    },
  });
  return guard;
}

/** The run's boundary marker; a child spawned without one makes its own. */
export function isolationMarker(payload: SpawnPayload): string {
  payload.content_isolation.marker ??= mintMarker();
  return payload.content_isolation.marker;
}

/**
 * Each tool's profile: `http.fetch` is untrusted and egress; `exec` is egress when its commands
 * have the network (`net = "all"`, or no sandbox), and exposes the agent then too (a command can
 * print what a server sent); an MCP tool counts with its server's tags (an untagged server is
 * untrusted and may send data out), a routed one with the tags the supervisor sent; a
 * tool matching `content_isolation.untrusted_tools` is untrusted too. Everything else — the file
 * tools, the supervisor's own tools — is trusted and sends nothing out.
 */
function toolProfiles(
  payload: SpawnPayload,
  sourceOf: (name: string) => string | undefined,
): (name: string) => ToolProfile {
  const serverTags = new Map(payload.mcp_servers.map((s) => [s.name, s.tags]));
  const routed = new Map(payload.routed_tools.map((t) => [t.name, t]));
  const execNetwork = payload.sandbox.mode !== 'bwrap' || payload.caveats.net === 'all';
  const markedUntrusted = (name: string): boolean =>
    payload.content_isolation.untrusted_tools.some((pattern) => matchesToolPattern(name, pattern));
  const fromTags = (server: string, tags: readonly TrifectaTag[]): ToolProfile => {
    // A server nobody tagged is untrusted, and (at run time) may send data out: it is unknown.
    const effective = tags.length === 0 ? ['untrusted_input', 'egress'] : tags;
    return {
      untrusted: effective.includes('untrusted_input'),
      egress: effective.includes('egress'),
      sensitive: effective.includes('sensitive'),
      source: `mcp:${server}`,
    };
  };
  return (name) => {
    let profile: ToolProfile = { untrusted: false, egress: false, sensitive: false, source: name };
    const route = routed.get(name);
    const source = sourceOf(name);
    if (name === 'http.fetch') profile = { ...profile, untrusted: true, egress: true };
    else if (name === 'exec')
      profile = {
        ...profile,
        egress: execNetwork,
        exposes: execNetwork,
        source: 'exec with network',
      };
    else if (route?.server !== undefined) profile = fromTags(route.server, route.tags ?? []);
    else if (source?.startsWith('mcp:') === true && !FILE_TOOLS.has(name)) {
      const server = source.slice('mcp:'.length);
      profile = fromTags(server, serverTags.get(server) ?? []);
    }
    return markedUntrusted(name) ? { ...profile, untrusted: true } : profile;
  };
}

async function askApproval(
  request: { tool: string; args: JsonObject; reason: string },
  signal: AbortSignal,
  channel: ControlChannel,
  writer: FrameWriter,
): Promise<EgressApproval> {
  const reply = await channel.toolReplies.request(
    `approval of \`${request.tool}\``,
    (id) => {
      writer.send({ type: 'tool_request', id, name: EGRESS_APPROVAL, args: { ...request } });
    },
    { signal },
  );
  const result = reply.result as { approved?: unknown; reason?: unknown } | null;
  if (!reply.is_error && result?.approved === true) return { approved: true, reason: 'approved' };
  const reason =
    typeof result?.reason === 'string'
      ? result.reason
      : typeof reply.result === 'string'
        ? reply.result
        : 'nobody approved it';
  return { approved: false, reason };
}
