import { Trajectory, toolProfiles, type ToolLookup } from '../authority/index.js';
import { SensitiveMatcher } from '../authority/sensitive-paths.js';
import type { JsonObject, SpawnPayload } from '../protocol/index.js';
import { mintMarker } from '../tools/content/index.js';
import { GuardedTools, type EgressApproval } from '../tools/guarded-tools.js';
import { EGRESS_APPROVAL } from '../tools/internal-catalog.js';
import type { ToolHost } from '../tools/tool.js';
import type { ControlChannel } from './control-channel.js';
import type { FrameWriter } from './frame-writer.js';

/**
 * The child's tools under its runtime guard: content isolation with the run's marker, the
 * trajectory seeded from the parent, and egress approval asked of the supervisor.
 */
export function guardChildTools(
  payload: SpawnPayload,
  host: ToolHost,
  tools: ToolLookup,
  channel: ControlChannel,
  writer: FrameWriter,
): GuardedTools {
  const guard = new GuardedTools({
    host,
    profile: toolProfiles(payload, tools),
    trajectory: new Trajectory({ risk: payload.risk_seed, taint: payload.inherited_taint }),
    trifecta: payload.runtime_trifecta,
    isolation: { ...payload.content_isolation, marker: isolationMarker(payload) },
    sensitive: new SensitiveMatcher(payload.runtime_trifecta.sensitive_paths),
    approve: (request, signal) => askApproval(request, signal, channel, writer),
    onEvent: (event) => {
      writer.event(event);
    },
  });
  return guard;
}

/** The run's boundary marker; a child spawned without one makes its own. */
export function isolationMarker(payload: SpawnPayload): string {
  payload.content_isolation.marker ??= mintMarker();
  return payload.content_isolation.marker;
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
