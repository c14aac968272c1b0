import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { ArborError, type McpServerSpec } from '../../protocol/index.js';
import { classifyConnectError, mcpUnavailable } from './mcp-failure.js';
import { McpConnection, toolLister } from './mcp-connection.js';
import { openChannel, type OpenedChannel } from './open-channel.js';
import { isAborted } from './is-aborted.js';
import type { EnvSource } from './resolve-references.js';
import { ToolList } from './tool-list.js';

export interface ConnectMcpServerOptions {
  signal?: AbortSignal | undefined;
  /** Where `{{env:NAME}}` and a stdio server's few inherited variables come from (default: `process.env`). */
  env?: EnvSource | undefined;
  /** The value of `{{secret:NAME}}`; without it, secret references do not resolve. */
  resolveSecret?: ((name: string) => string | undefined) | undefined;
  /** How arbor introduces itself in `initialize`. */
  clientInfo?: { name: string; version: string } | undefined;
  /** Called when the server announces `list_changed` (the list is only marked stale). */
  onListChanged?: (() => void) | undefined;
  /** A stdio server's stderr: `pipe` keeps its last lines for error messages (default). */
  stderr?: 'ignore' | 'pipe' | undefined;
  /** Grace for each step of the close ladder, in milliseconds (default 2000). */
  closeGraceMs?: number | undefined;
}

const DEFAULT_CLOSE_GRACE_MS = 2_000;
/** How long an exited server's stderr is waited for, so its last words make the message. */
const STDERR_SETTLE_MS = 200;

function checkGrace(value: number | undefined): number {
  if (value === undefined) return DEFAULT_CLOSE_GRACE_MS;
  if (!Number.isInteger(value) || value <= 0) {
    throw new ArborError(
      'config',
      `Expected \`closeGraceMs\` to be a positive integer (ms), got \`${value}\`.`,
    );
  }
  return value;
}

function cancelled(name: string, reason: unknown): ArborError {
  return new ArborError('cancelled', `Connecting to MCP server \`${name}\` was cancelled.`, {
    details: { server: name },
    cause: reason,
  });
}

/**
 * Connects one MCP server: resolve its references, start the transport, `initialize`, list every
 * tool. All of it must finish within the spec's `connect_timeout_ms`; on any failure the server is
 * shut down (a stdio process is killed) before the `mcp_unavailable` error is thrown.
 */
export async function connectMcpServer(
  spec: McpServerSpec,
  options: ConnectMcpServerOptions = {},
): Promise<McpConnection> {
  const closeGraceMs = checkGrace(options.closeGraceMs);
  const timeoutMs = spec.connect_timeout_ms;
  if (isAborted(options.signal)) throw cancelled(spec.name, options.signal?.reason);
  const timer = new AbortController();
  const timeout = setTimeout(() => {
    timer.abort(new ArborError('timeout', `Connecting took longer than ${timeoutMs} ms.`));
  }, timeoutMs);
  const signal = AbortSignal.any([timer.signal, ...(options.signal ? [options.signal] : [])]);
  let opened: OpenedChannel | undefined;
  try {
    opened = await openChannel(
      spec,
      { env: options.env ?? process.env, resolveSecret: options.resolveSecret, signal },
      options.stderr ?? 'pipe',
    );
    const client = new Client(options.clientInfo ?? { name: 'arbor', version: 'dev' }, {
      capabilities: {},
    });
    const list = new ToolList(toolLister(client, timeoutMs));
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      list.markChanged();
      options.onListChanged?.();
    });
    // Nothing is spawned or dialled before this point; a connect cancelled by now starts nothing.
    signal.throwIfAborted();
    await client.connect(opened.channel.transport, { signal, timeout: timeoutMs });
    await list.refresh(signal);
    const { channel, scrub } = opened;
    return new McpConnection({ name: spec.name, client, channel, list, closeGraceMs, scrub });
  } catch (error) {
    // Read before the shutdown below, which takes time and ends the process whatever its state.
    const hasTimedOut = timer.signal.aborted;
    clearTimeout(timeout);
    const hasExited = opened?.channel.hasExited() ?? false;
    const pid = opened?.channel.pid();
    const shutdown = await opened?.channel.stop({ graceMs: closeGraceMs, force: true });
    if (isAborted(options.signal)) throw cancelled(spec.name, options.signal?.reason);
    // What was started and how it was ended, for the record.
    const ended = pid === undefined ? {} : { pid, shutdown };
    if (hasTimedOut) {
      throw mcpUnavailable(spec.name, {
        kind: 'timeout',
        detail: `it did not connect and list its tools within ${timeoutMs} ms`,
        details: { timeoutMs, ...ended },
      });
    }
    await opened?.channel.settleStderr(STDERR_SETTLE_MS);
    const failure = classifyConnectError(error, {
      transport: spec.command === undefined ? 'http' : 'stdio',
      command: spec.command,
      hasExited,
      stderr: opened?.channel.stderr() ?? [],
      scrub: opened?.scrub ?? ((text) => text),
    });
    // The raw error is not kept as the cause: Node's spawn and fetch errors quote the command
    // line, the URL and its host, which may hold credentials.
    throw mcpUnavailable(spec.name, { ...failure, details: { ...failure.details, ...ended } });
  } finally {
    clearTimeout(timeout);
  }
}
