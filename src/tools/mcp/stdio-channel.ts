import type { McpServerSpec } from '../../protocol/index.js';
import { SealedStdioTransport } from './sealed-stdio-transport.js';
import type { ServerChannel } from './server-channel.js';
import { StderrTail } from './stderr-tail.js';
import { stopProcess } from './stop-process.js';

export interface StdioChannelOptions {
  env: Record<string, string>;
  stderr: 'ignore' | 'pipe';
  scrub: (text: string) => string;
}

/**
 * A stdio server: `SealedStdioTransport` (the SDK's stdio transport, with no descriptor of this
 * process but the pipes reaching the server) spawns `command` with `args` in `cwd` and the given
 * environment (never arbor's whole environment), without a shell. Its stderr is never inherited:
 * in a child process, stderr is arbor's NDJSON log channel. The transport keeps the pid after it
 * is asked to close (the client asks by itself when `initialize` fails): its own shutdown runs on
 * timers that do not hold the event loop open, so a server that ignores stdin EOF would otherwise
 * outlive a short-lived parent.
 */
export function openStdioChannel(
  spec: McpServerSpec & { command: string },
  options: StdioChannelOptions,
): ServerChannel {
  const transport = new SealedStdioTransport({
    command: spec.command,
    args: spec.args,
    env: options.env,
    stderr: options.stderr,
    ...(spec.cwd === undefined ? {} : { cwd: spec.cwd }),
  });
  // With `stderr: 'pipe'` the transport hands out a stream before it spawns: no early line is lost.
  const stream = transport.stderr;
  const tail = stream === null ? undefined : new StderrTail(stream, options.scrub);
  let hasExited = false;
  let markExited!: () => void;
  const exited = new Promise<void>((resolve) => {
    markExited = resolve;
  });
  // The transport calls `onclose` when the process has closed (exited, streams drained). The
  // client wraps this handler when it connects, so it stays in place.
  transport.onclose = () => {
    hasExited = true;
    markExited();
  };
  return {
    kind: 'stdio',
    transport,
    pid: () => transport.pid,
    hasExited: () => hasExited,
    exited,
    stderr: () => tail?.lines() ?? [],
    settleStderr: (ms) => tail?.settled(ms) ?? Promise.resolve(),
    async stop({ graceMs, force }) {
      return stopProcess(
        {
          pid: transport.pid,
          hasExited: () => hasExited,
          exited,
          endInput: () => {
            // The transport's close ends stdin and runs a slower ladder of its own; arbor's
            // ladder below decides when the process is gone.
            transport.close().catch(() => undefined);
          },
        },
        { graceMs, force },
      );
    },
  };
}
