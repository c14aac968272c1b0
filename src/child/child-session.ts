import { AgentSession, type SessionOptions } from '../loop/index.js';
import { channelHooks, type ChildContext } from './child-context.js';

/** What differs between a child's roles: the agent's whole session, or one turn's slice. */
export interface SessionParts extends Pick<SessionOptions, 'tools' | 'system' | 'limits'> {
  transcript: NonNullable<SessionOptions['transcript']>;
  /** The transcript was recorded before a crash (see `SessionOptions.resumed`). */
  resumed?: boolean;
  /** Ask the supervisor for budget before each model call (default true). */
  admission?: boolean;
}

/**
 * The child's agent session: the model, the control channel's hooks, the capture tool and the
 * node's identity come from `context`; what the role runs on comes from `parts`.
 */
export function childSession(context: ChildContext, parts: SessionParts): AgentSession {
  const { admission = true, ...session } = parts;
  const { telemetry } = context.payload;
  return new AgentSession({
    ...session,
    model: context.model,
    hooks: channelHooks(context, { admission }),
    logContent: telemetry.log_content,
    offerFinish: context.offerFinish,
    ...(context.capture === undefined ? {} : { capture: context.capture }),
    identity: {
      runId: telemetry.run_id,
      nodeId: telemetry.node_id,
      ...(telemetry.traceparent === undefined ? {} : { traceparent: telemetry.traceparent }),
    },
  });
}
