import type { A2aPeerSpec, McpServerSpec } from '../../protocol/index.js';
import { resolveReferences } from '../../tools/index.js';

/**
 * Resolves `{{env:NAME}}` and `{{secret:NAME}}` (both read from the environment) in MCP headers
 * and variables here, where the environment is: the resolved values travel to children in their
 * payload, over the pipe, and are redacted from every stored copy.
 */
export async function resolveServerSecrets(
  servers: McpServerSpec[],
  env: NodeJS.ProcessEnv,
): Promise<McpServerSpec[]> {
  const sources = { env, resolveSecret: (name: string) => env[name] };
  return Promise.all(
    servers.map(async (server) => ({
      ...server,
      headers: (await resolveReferences(server.headers, 'header', sources)).values,
      env: (await resolveReferences(server.env, 'variable', sources)).values,
    })),
  );
}

/** Resolves the `{{env:NAME}}` references in A2A peers' headers (their tokens) here, as for MCP. */
export async function resolvePeerSecrets(
  peers: A2aPeerSpec[],
  env: NodeJS.ProcessEnv,
): Promise<A2aPeerSpec[]> {
  const sources = { env, resolveSecret: (name: string) => env[name] };
  return Promise.all(
    peers.map(async (peer) => ({
      ...peer,
      headers: (await resolveReferences(peer.headers, 'header', sources)).values,
    })),
  );
}
