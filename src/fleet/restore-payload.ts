import { resolveCredentials } from '../intel/index.js';
import {
  ArborError,
  REDACTED,
  SpawnPayloadSchema,
  type McpServerSpec,
  type SandboxSettings,
  type SpawnPayload,
} from '../protocol/index.js';
import { resolvePeerSecrets, resolveServerSecrets } from '../supervisor/spawn/server-secrets.js';

/** What a worker restores a job's payload from: its own environment and configured servers. */
export interface WorkerSecrets {
  env: NodeJS.ProcessEnv;
  /** The MCP servers the worker's own config names, by name. */
  servers: ReadonlyMap<string, McpServerSpec>;
  /** This machine's exec sandbox, as probed when the worker started. */
  sandbox: SandboxSettings;
}

/** How a server is started or reached: taken from the worker's config, never from the job. */
const REACH_FIELDS = ['command', 'args', 'env', 'cwd', 'url', 'headers'] as const;

/**
 * The payload a worker's child runs with. The job carried it redacted, with credentials as
 * references: each is resolved here from the worker's own environment, and every MCP server is
 * the one of the same name in the worker's config (a job cannot make a worker run a command). A
 * payload that cannot be restored fails the node with an error that says what is missing.
 */
export async function restorePayload(
  raw: unknown,
  secrets: WorkerSecrets,
  keyed: readonly number[] = [],
): Promise<SpawnPayload> {
  const parsed = SpawnPayloadSchema.safeParse(raw);
  if (!parsed.success)
    throw new ArborError(
      'protocol_violation',
      `The job's payload is not a valid spawn payload: ${parsed.error.issues[0]?.message ?? 'invalid'}`,
    );
  const payload = parsed.data;
  const intelligence = resolveCredentials(payload.intelligence, secrets.env);
  for (const index of keyed) {
    const endpoint = intelligence.endpoints[index];
    if (endpoint !== undefined && endpoint.api_key === undefined)
      throw new ArborError(
        'config',
        `Endpoint ${index} (${endpoint.url}) needs an API key, and this worker's environment has none: set \`ARBOR_API_KEY\` (or the dialect's own variable) for the worker, or give the endpoint a \`credential_ref\` the worker can resolve.`,
      );
  }
  intelligence.endpoints.forEach((endpoint, index) => {
    for (const [name, value] of Object.entries(endpoint.headers))
      if (value === REDACTED)
        throw new ArborError(
          'config',
          `Endpoint ${index}: header \`${name}\` holds a secret, which does not travel to workers: give the endpoint's key as its API key instead (\`credential_ref = "env:NAME"\`, or \`ARBOR_API_KEY\`), which each worker resolves from its own environment.`,
        );
  });
  const servers = await resolveServerSecrets(
    payload.mcp_servers.map((server) => ownServer(server, secrets.servers)),
    secrets.env,
  );
  const peers = await resolvePeerSecrets(payload.a2a_peers, secrets.env);
  for (const peer of peers)
    if (Object.values(peer.headers).includes(REDACTED))
      throw new ArborError(
        'config',
        `A2A peer \`${peer.name}\`: a header held a literal secret, which does not travel to workers; give it as \`{{env:NAME}}\`.`,
      );
  if (payload.aauth?.enrollment_token === REDACTED)
    throw new ArborError(
      'config',
      'The AAuth enrollment token was a literal secret, which does not travel to workers; give it as `{{env:NAME}}`.',
    );
  if (payload.net_credentials !== undefined)
    throw new ArborError(
      'config',
      `The node holds \`http.fetch\` credentials (for ${payload.net_credentials.map((c) => c.host).join(', ')}), which do not travel to workers: run it as a local process, or leave the host out of its \`net\`.`,
    );
  // The sandbox is this machine's (its bubblewrap, or none); an operator's `--sandbox off` holds.
  const sandbox = payload.sandbox.mode === 'off' ? payload.sandbox : secrets.sandbox;
  return { ...payload, intelligence, mcp_servers: servers, a2a_peers: peers, sandbox };
}

function ownServer(wanted: McpServerSpec, own: ReadonlyMap<string, McpServerSpec>): McpServerSpec {
  const mine = own.get(wanted.name);
  if (mine === undefined)
    throw new ArborError(
      'config',
      `The node needs MCP server \`${wanted.name}\`, which this worker's config does not name: a worker runs only servers its own config names (\`[[mcp.server]]\`).`,
    );
  const reach: Partial<McpServerSpec> = {};
  for (const field of REACH_FIELDS) Object.assign(reach, { [field]: mine[field] });
  const { command: _c, args: _a, env: _e, cwd: _d, url: _u, headers: _h, ...policy } = wanted;
  return { ...policy, ...reach } as McpServerSpec;
}
