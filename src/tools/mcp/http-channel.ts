import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { McpServerSpec } from '../../protocol/index.js';
import type { ServerChannel } from './server-channel.js';

/**
 * A Streamable HTTP server at `url`, every request carrying the resolved `headers`. The SDK's
 * default redirect policy (same origin only) stands, so a redirect cannot carry the headers to
 * another host.
 */
export function openHttpChannel(
  spec: McpServerSpec & { url: string },
  headers: Record<string, string>,
): ServerChannel {
  const transport = new StreamableHTTPClientTransport(new URL(spec.url), {
    requestInit: { headers },
  });
  return {
    kind: 'http',
    transport,
    pid: () => undefined,
    hasExited: () => false,
    exited: new Promise<void>(() => undefined),
    stderr: () => [],
    settleStderr: () => Promise.resolve(),
    async stop({ graceMs, force }) {
      const started = performance.now();
      // Ending the session lets the server free it now rather than at its idle timeout; a server
      // that is down or slow does not hold the close up for more than the grace period.
      if (!force && transport.sessionId !== undefined) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          transport.terminateSession().catch(() => undefined),
          new Promise<void>((resolve) => {
            timer = setTimeout(resolve, graceMs);
          }),
        ]);
        clearTimeout(timer);
      }
      await transport.close().catch(() => undefined);
      return { how: 'disconnected', ms: Math.round(performance.now() - started) };
    },
  };
}
