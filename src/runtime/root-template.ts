import type { IntelConfig } from '../protocol/index.js';
import type { RootTemplate } from '../supervisor/index.js';
import type { RunSafety } from './run-safety.js';
import type { RunConfig } from './settings.js';

/** The root payload of a run. */
export function rootTemplate(start: {
  config: RunConfig;
  intelligence: IntelConfig;
  safety: RunSafety;
}): RootTemplate {
  const { config } = start;
  const credentials = config.netCredentials ?? [];
  return {
    instruction: config.instruction,
    intelligence: start.intelligence,
    limits: {
      max_steps: config.maxSteps,
      ...(config.deadlineMs === undefined ? {} : { deadline_ms: config.deadlineMs }),
      max_depth: config.maxDepth,
    },
    warm: config.warm,
    caveats: config.grant,
    mcp_servers: config.mcpServers,
    a2a_peers: config.a2aPeers ?? [],
    // Cut to what each node's `net` allows when it is minted (`mintPayload`).
    ...(credentials.length === 0 ? {} : { net_credentials: credentials }),
    ...start.safety.template,
  };
}
