import type { Readable } from 'node:stream';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { McpServerSpec } from '../../protocol/index.js';
import type { ServerChannel } from './server-channel.js';
import { StderrTail } from './stderr-tail.js';
import { stopProcess } from './stop-process.js';

export interface StdioChannelOptions {
  env: Record<string, string>;
  stderr: 'ignore' | 'pipe';
  scrub: (text: string) => string;
}

/**
 * The SDK's stdio transport, remembering the pid it spawned. The SDK forgets the process as soon
 * as it is asked to close (and the client asks by itself when `initialize` fails), then runs a
 * shutdown on timers that do not hold the event loop open: without the pid, a server that ignores
 * stdin EOF would outlive a short-lived parent.
 */
class TrackedStdioTransport extends StdioClientTransport {
  spawnedPid: number | undefined;

  override async start(): Promise<void> {
    await super.start();
    this.spawnedPid = this.pid ?? undefined;
  }
}

/**
 * A stdio server: the SDK's `StdioClientTransport` spawns `command` with `args` in `cwd` and the
 * given environment (never arbor's whole environment), without a shell. Its stderr is never
 * inherited: in a child process, stderr is arbor's NDJSON log channel.
 */
export function openStdioChannel(
  spec: McpServerSpec & { command: string },
  options: StdioChannelOptions,
): ServerChannel {
  const transport = new TrackedStdioTransport({
    command: spec.command,
    args: spec.args,
    env: options.env,
    stderr: options.stderr,
    ...(spec.cwd === undefined ? {} : { cwd: spec.cwd }),
  });
  // With `stderr: 'pipe'` the transport hands out a PassThrough before it spawns, so no early line
  // is lost; its declared type is the wider `Stream`.
  const stream = transport.stderr as Readable | null;
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
    pid: () => transport.spawnedPid,
    hasExited: () => hasExited,
    exited,
    stderr: () => tail?.lines() ?? [],
    settleStderr: (ms) => tail?.settled(ms) ?? Promise.resolve(),
    async stop({ graceMs, force }) {
      return stopProcess(
        {
          pid: transport.spawnedPid,
          hasExited: () => hasExited,
          exited,
          endInput: () => {
            // The SDK's own close ends stdin and runs a slower ladder of its own; arbor's ladder
            // below decides when the process is gone.
            transport.close().catch(() => undefined);
          },
        },
        { graceMs, force },
      );
    },
  };
}
