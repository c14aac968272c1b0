import { ArborError, type McpServerSpec } from '../../protocol/index.js';
import { openHttpChannel } from './http-channel.js';
import { resolveReferences, type ReferenceSources } from './resolve-references.js';
import { scrubSecrets } from '../../protocol/index.js';
import type { ServerChannel } from './server-channel.js';
import { serverEnv } from './server-env.js';
import { openStdioChannel } from './stdio-channel.js';

export interface OpenedChannel {
  channel: ServerChannel;
  /** Removes every secret handed to this server from a text. */
  scrub: (text: string) => string;
}

/**
 * Resolves a server's references (`env` for stdio, `headers` for HTTP) and opens its transport.
 * Nothing is spawned or dialled yet: the client's `connect` starts the transport.
 */
export async function openChannel(
  spec: McpServerSpec,
  sources: ReferenceSources,
  stderr: 'ignore' | 'pipe',
): Promise<OpenedChannel> {
  const { command, url } = spec;
  if (command !== undefined) {
    const own = await resolveReferences(spec.env, 'variable', sources);
    const scrub = (text: string): string => scrubSecrets(text, own.secrets);
    const env = serverEnv(sources.env, own.values);
    return { channel: openStdioChannel({ ...spec, command }, { env, stderr, scrub }), scrub };
  }
  if (url !== undefined) {
    const parsed = new URL(url);
    if (parsed.username !== '' || parsed.password !== '') {
      // fetch refuses such a URL anyway, and a credential in a URL ends up in logs.
      throw new ArborError(
        'config',
        'expected the `url` to carry no user name or password; put credentials in `headers` (`Authorization = "Basic {{secret:NAME}}"`).',
      );
    }
    const headers = await resolveReferences(spec.headers, 'header', sources);
    // The URL is scrubbed too: a path or query can hold a token (`/mcp?key=…`).
    const secrets = [...headers.secrets, url, parsed.href, parsed.search.slice(1)];
    const scrub = (text: string): string => scrubSecrets(text, secrets);
    return { channel: openHttpChannel({ ...spec, url }, headers.values), scrub };
  }
  throw new ArborError(
    'config',
    'expected exactly one of `command` (stdio) or `url` (HTTP), got neither.',
  );
}
